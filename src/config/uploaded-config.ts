import type { GatewayConfig } from './gateway-config';

/**
 * The gateway config document as deterministic JSON text (2-space indented, trailing newline).
 *
 * Determinism comes from the builders: `Gateway` and `Service` create every object with a fixed key order and
 * schemas come from the deterministic generator (or the user's raw schema, kept as written, because the
 * validator reports properties in schema order). Keys are deliberately not sorted.
 */
export function renderGatewayConfig(config: GatewayConfig): string {
  return `${JSON.stringify(config, null, 2)}\n`;
}

/**
 * Escape a literal string for a Terraform JSON attribute.
 *
 * Terraform evaluates every JSON string as a template, so a description or pattern holding `${` or `%{` would
 * be interpolated (or fail to plan). `$${` and `%%{` are its escapes for the literal sequences.
 */
export function terraformLiteral(text: string): string {
  // a replacer function, because `$$` in a replacement string means a single `$`
  return text.replace(/\$\{/g, () => '$${').replace(/%\{/g, () => '%%{');
}

/** Undoes {@link terraformLiteral}: the text Terraform itself would hand to the container. */
export function fromTerraformLiteral(text: string): string {
  return text.replace(/\$\$\{/g, () => '${').replace(/%%\{/g, () => '%{');
}

/**
 * Reads the config document as synthesis uploads it (a `docker_container` upload's `content`): Terraform's
 * escapes undone, then parsed. `dev`, the image test and the synth tests read it through here, so all of them
 * see the text the deployed container gets.
 *
 * @throws SyntaxError when the content is not JSON
 */
export function readUploadedConfig(content: string): unknown {
  return JSON.parse(fromTerraformLiteral(content));
}

/**
 * The text as base64 inside Terraform's `sensitive()`, for an upload's `content_base64` or a `docker_config`'s `data`:
 * plans show "(sensitive value)", and base64 holds no character Terraform would interpolate, so nothing needs
 * escaping. Read back with {@link uploadedText}.
 */
export function sensitiveBase64(text: string): string {
  return `\${sensitive("${Buffer.from(text, 'utf8').toString('base64')}")}`;
}

const SENSITIVE_BASE64 = /^\$\{sensitive\("([A-Za-z0-9+/=]*)"\)\}$/;

/**
 * The text an upload block gives its container: `content` with Terraform's escapes undone, or a
 * {@link sensitiveBase64} `content_base64` decoded; `undefined` for any other form (a reference).
 */
export function uploadedText(upload: {
  readonly content?: unknown;
  readonly content_base64?: unknown;
}): string | undefined {
  if (typeof upload.content === 'string') return fromTerraformLiteral(upload.content);
  const match = typeof upload.content_base64 === 'string' ? SENSITIVE_BASE64.exec(upload.content_base64) : null;
  return match === null ? undefined : Buffer.from(match[1], 'base64').toString('utf8');
}
