/** Memory and concurrency budgets (the issue-6 groundwork: primitives and the process-wide set). */
export { type AcquireOptions, Budget, type BudgetSnapshot, type Permit } from "./budget.js";
export {
  createProcessBudgets,
  globalBudgets,
  type LimitsSnapshot,
  limitsSnapshot,
  PROCESS_BUDGET_DEFAULTS,
  type ProcessBudgets,
} from "./process-budgets.js";
