import type { ToolportLogger } from './tool-types.ts';

const ignore = (): void => {};

/** The default when the embedding application passes no logger. */
export const silentLogger: ToolportLogger = { debug: ignore, info: ignore, warn: ignore, error: ignore };
