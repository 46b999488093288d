import type { ApprovalDecision, ApprovalRequest, ApproveCallback } from '../core/tool-approval.ts';
import type { CliIo } from './cli-io.ts';

export interface CliApproverOptions {
  io: CliIo;
  /** `--yes`: approve every call a rule marks `ask`. */
  yes: boolean;
  /** Whether a human can answer (stdin and stderr on a terminal). */
  interactive: boolean;
  /** Reads the human's answer line (the chat's own line reader, so turns and answers share one input). */
  readLine: () => Promise<string | undefined>;
  /** `a` (always): writes the allow rule where it is stored (`--user`); otherwise it holds for this process. */
  rememberAlways?: (request: ApprovalRequest) => Promise<void>;
  /** Called before a question is written (clears the CLI-1 progress line, which would redraw over it). */
  beforeAsking?: () => void;
}

/**
 * Issue 16 for `toolport chat`: `y`/`n`/`a` on a terminal; without one an `ask` is denied with a message saying so
 * (on stderr and in the tool result), unless `--yes`.
 */
export function createCliApprover(options: CliApproverOptions): ApproveCallback {
  const { io } = options;
  const always = new Set<string>();
  const key = (request: ApprovalRequest, subject: string): string => `${request.toolName}\u0000${subject}`;
  // One question at a time: parallel calls must not read each other's answers.
  let queue: Promise<unknown> = Promise.resolve();
  return (request) => {
    const next = queue.then(async (): Promise<ApprovalDecision> => {
      if (options.yes) return { decision: 'approve', decidedBy: 'cli --yes' };
      if (
        request.subjects.length > 0 &&
        request.subjects.every((subject) => always.has(key(request, subject)))
      )
        return { decision: 'approve', decidedBy: 'cli', remember: 'always' };
      const summary = `${request.toolName} ${JSON.stringify(request.arguments)} (rule ${request.reason})`;
      if (!options.interactive) {
        const message = `${request.toolName} needs approval (rule ${request.reason}) and there is no terminal to ask; denied (run with --yes to approve every call)`;
        io.stderr(`toolport: ${message}\n`);
        return { decision: 'deny', decidedBy: 'cli (no terminal)', message };
      }
      options.beforeAsking?.();
      for (;;) {
        io.stderr(`toolport: approve ${summary}? [y]es / [n]o / [a]lways: `);
        const answer = (await options.readLine())?.trim().toLowerCase();
        if (answer === undefined)
          return { decision: 'deny', decidedBy: 'cli', message: 'no answer (end of input)' };
        if (answer === 'y' || answer === 'yes')
          return { decision: 'approve', decidedBy: 'cli', remember: 'call' };
        if (answer === 'n' || answer === 'no')
          return { decision: 'deny', decidedBy: 'cli', remember: 'call' };
        if (answer === 'a' || answer === 'always') {
          for (const subject of request.subjects) always.add(key(request, subject));
          await options.rememberAlways?.(request);
          return { decision: 'approve', decidedBy: 'cli', remember: 'always' };
        }
      }
    });
    queue = next.catch(() => undefined);
    return next;
  };
}
