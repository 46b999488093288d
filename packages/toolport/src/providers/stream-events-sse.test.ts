import { describe, expect, it } from 'vitest';
import { formatStreamEventAsSse } from './stream-events-sse.ts';

describe('PROV-3 events as SSE', () => {
  it('names the event by its type and keeps multi-line text on one data line', () => {
    expect(formatStreamEventAsSse({ type: 'text_delta', delta: 'a\nb' }, 3)).toBe(
      'id: 3\nevent: text_delta\ndata: {"type":"text_delta","delta":"a\\nb"}\n\n',
    );
    expect(
      formatStreamEventAsSse({
        type: 'turn_completed',
        usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
        stopReason: 'end_turn',
        iterations: 1,
      }),
    ).toBe(
      'event: turn_completed\ndata: {"type":"turn_completed","usage":{"inputTokens":1,"outputTokens":2,"totalTokens":3},"stopReason":"end_turn","iterations":1}\n\n',
    );
  });
});
