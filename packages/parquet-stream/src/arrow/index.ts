/** Arrow utilities the readers, writers and the merge engine share. */
export { takeData, takeRows } from "./take.js";
