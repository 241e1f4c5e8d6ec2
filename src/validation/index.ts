export type { Violation, ValidationResult, ToolValidator, CompileResult } from './violation';
export { compileToolSchema } from './compile-tool-schema';
export { normalizeAliases } from './normalize-aliases';
export type { NormalizeAliasesResult } from './normalize-aliases';
export { messages } from './messages';
export { hasOwn, isJsonObject, isObject } from './json-object';
export { CUT_MARK, cutName, escapeName, keyPath } from './path';
export { invalidType, invalidValue, joinMessages, missingRequired } from './violation-messages';
export { RESERVED_NAMES, isReservedName, reservedNameReason } from './reserved-names';
export { patternProblem } from '../regex/linear-regexp';
export {
  CONSTRAINT_ORDER,
  PARAM_TYPES,
  TYPE_CONSTRAINTS,
  typesOf,
  type ConstraintName,
  type ParamTypeName,
} from './type-constraints';
export { nonFiniteNumbers } from './non-finite-numbers';
