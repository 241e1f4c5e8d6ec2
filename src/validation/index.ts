export type { Violation, ValidationResult, ToolValidator, CompileResult } from './violation';
export { compileToolSchema } from './compile-tool-schema';
export { normalizeAliases } from './normalize-aliases';
export type { NormalizeAliasesResult } from './normalize-aliases';
export { messages } from './messages';
export { hasOwn, isJsonObject } from './json-object';
export { cutName, escapeName, keyPath } from './path';
export { invalidValue, joinMessages, missingRequired } from './violation-messages';
