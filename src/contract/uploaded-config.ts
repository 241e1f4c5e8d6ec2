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
