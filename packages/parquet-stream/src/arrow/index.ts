/** Arrow utilities the readers, writers and the merge engine share. */

export { conformData, nullData } from "./conform.js";
export { takeData, takeRows } from "./take.js";
