export type { Violation, ValidationResult, ToolValidator, CompileResult } from './violation';
export { compileToolSchema } from './compile-tool-schema';
export { normalizeAliases } from './normalize-aliases';
export type { NormalizeAliasesResult } from './normalize-aliases';
export { messages } from './messages';
export { isJsonObject } from './json-object';
export { RESERVED_NAMES, isReservedName, reservedNameReason } from './reserved-names';
