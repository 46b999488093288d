/** Bad command-line usage: the CLI prints the message on stderr and exits 2 (CLI-1). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function parseJsonOption(flag: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(
      `${flag} is not valid JSON (${error instanceof Error ? error.message : String(error)}): ${text}`,
    );
  }
}
