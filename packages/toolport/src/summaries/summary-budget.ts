import { ToolportError } from '../core/errors.ts';

/**
 * Runs `work` under one overall budget on top of the call's own signal (WEB-1: 15 s for robots.txt, the fetch, the
 * extraction and the summary). Whatever the work throws once the budget is spent becomes one `timeout` error that
 * names the budget; a cancel by the caller stays the caller's (executeTool reports it as `aborted`).
 */
export async function withBudget<T>(
  parent: AbortSignal,
  budgetMs: number,
  toolName: string,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const startedAt = Date.now();
  const budget = new AbortController();
  const timer = setTimeout(
    () => budget.abort(new ToolportError('timeout', budgetMessage(toolName, budgetMs))),
    budgetMs,
  );
  const signal = AbortSignal.any([parent, budget.signal]);
  try {
    return await new Promise<T>((resolve, reject) => {
      // Rejects at the deadline even when a step ignores its signal (a model SDK between retries, a DOM parse).
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      work(signal).then(resolve, reject);
    });
  } catch (error) {
    // A step's own deadline that lands on the budget's (same timer tick) is the budget running out, too.
    const budgetSpent =
      budget.signal.aborted ||
      (error instanceof ToolportError && error.code === 'timeout' && Date.now() - startedAt >= budgetMs);
    if (budgetSpent && !parent.aborted) {
      throw new ToolportError('timeout', budgetMessage(toolName, budgetMs), {
        details: { timeoutMs: budgetMs },
      });
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function budgetMessage(toolName: string, budgetMs: number): string {
  return `${toolName} did not finish within its ${budgetMs / 1000} s budget (robots.txt, fetch, extraction and summary together).`;
}
