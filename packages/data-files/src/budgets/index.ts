/** Memory and concurrency budgets: the primitive, the process-wide set and the per-call layer over it. */
export { type AcquireOptions, Budget, type BudgetSnapshot, type Permit } from "./budget.js";
export {
  type BudgetObserver,
  CALL_LIMIT_DEFAULTS,
  type CallBudgetOptions,
  CallBudgets,
  type CallLimits,
  DEFAULT_PERMIT_WAIT_TIMEOUT_MS,
} from "./call-budgets.js";
export {
  createProcessBudgets,
  globalBudgets,
  type LimitsSnapshot,
  limitsSnapshot,
  PROCESS_BUDGET_DEFAULTS,
  type ProcessBudgets,
} from "./process-budgets.js";
