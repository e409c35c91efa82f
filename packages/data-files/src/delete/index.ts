/** Deletes by scan filter: the file plan, the streamed probe and rewrite, one DELETE commit (delete-where.ts). */
export { type DeleteOptions, type DeleteResult, deleteWhere } from "./delete-where.js";
