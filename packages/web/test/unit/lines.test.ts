import { describe, expect, it } from 'vitest';
import { commandAndArguments, pairsOf } from '../../src/pages/lines';

describe('UI-1 list and map text fields', () => {
  it('takes arguments one per line, or splits a whole command line when there are none', () => {
    expect(commandAndArguments(' node ', '/srv/a.js\n\n --flag \n')).toEqual({
      command: 'node',
      args: ['/srv/a.js', '--flag'],
    });
    expect(commandAndArguments('npx -y "@scope/server everything" \'two words\'', '')).toEqual({
      command: 'npx',
      args: ['-y', '@scope/server everything', 'two words'],
    });
    expect(commandAndArguments('/usr/bin/node', '')).toEqual({ command: '/usr/bin/node' });
  });

  it('reads KEY=value and Name: value lines, splitting at the first separator', () => {
    expect(pairsOf('A=1\nB = x=y\nnot a pair\n=empty', '=')).toEqual({ A: '1', B: 'x=y' });
    expect(pairsOf('Authorization: Bearer {{TOKEN}}\nX-Id:7', ':')).toEqual({
      Authorization: 'Bearer {{TOKEN}}',
      'X-Id': '7',
    });
  });
});
