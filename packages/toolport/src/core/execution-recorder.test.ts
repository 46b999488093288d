import { describe, expect, it } from 'vitest';
import { InMemoryExecutionRecorder, type ToolExecutionRecord } from './execution-recorder.ts';

function record(index: number): ToolExecutionRecord {
  return {
    callId: `c${index}`,
    toolName: index % 2 === 0 ? 'even' : 'odd',
    userId: 'u',
    chatId: undefined,
    agentId: undefined,
    startedAt: new Date(0),
    durationMs: 1,
    outcome: 'ok',
    resultSize: index,
  };
}

describe('CORE-6 in-memory execution recorder', () => {
  it('returns records newest first', () => {
    const recorder = new InMemoryExecutionRecorder(10);
    for (let index = 0; index < 4; index += 1) recorder.record(record(index));
    expect(recorder.query().map((entry) => entry.callId)).toEqual(['c3', 'c2', 'c1', 'c0']);
  });

  it('keeps only the newest `capacity` records once full, still newest first', () => {
    const recorder = new InMemoryExecutionRecorder(3);
    for (let index = 0; index < 8; index += 1) recorder.record(record(index));
    expect(recorder.query().map((entry) => entry.callId)).toEqual(['c7', 'c6', 'c5']);
    expect(recorder.query({ toolName: 'odd' }).map((entry) => entry.callId)).toEqual(['c7', 'c5']);
    expect(recorder.query({ limit: 1 }).map((entry) => entry.callId)).toEqual(['c7']);
  });
});
