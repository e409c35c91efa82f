/** Arrow utilities the readers, writers and the merge engine share. */

export { canConcat, concatData, concatRows } from "./concat.js";
export { conformData, nullData } from "./conform.js";
export { decimal128At, setDecimal128 } from "./decimal-words.js";
export { takeData, takeRows } from "./take.js";
export { utf8Reader, utf8ReaderMemo } from "./utf8-text.js";
