/**
 * `jose` (v6) is an ES module and this package builds to CommonJS, so it is loaded with a dynamic `import()`,
 * once, when the first token is checked: a gateway without OAuth never loads it.
 */
type Jose = typeof import('jose', { with: { 'resolution-mode': 'import' } });

let jose: Promise<Jose> | undefined;

/** The `jose` module, imported on first use. */
export function loadJose(): Promise<Jose> {
  jose ??= import('jose');
  return jose;
}
