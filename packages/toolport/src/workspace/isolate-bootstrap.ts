/**
 * The script that builds `g` and `console` inside a fresh isolate, before the workspace script runs (WS-1). It is
 * evaluated as a function taking two `ivm.Reference`s to the host (calls and logs) and the arguments' JSON; it keeps
 * them in its closure and never exposes them: a script holding a Reference could reach back into the host process
 * (isolated-vm README, "Security"). Everything it needs (the option objects, `JSON`) is captured before the script
 * can patch a built-in. Values cross the boundary as JSON text only.
 */
export const ISOLATE_BOOTSTRAP_SOURCE = String.raw`(function (hostCall, hostLog, argsJson) {
  'use strict';
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const freeze = Object.freeze;
  const ErrorClass = Error;
  const callOptions = freeze({ __proto__: null,
    arguments: freeze({ __proto__: null, copy: true }),
    result: freeze({ __proto__: null, promise: true, copy: true }) });
  const logOptions = freeze({ __proto__: null, arguments: freeze({ __proto__: null, copy: true }) });

  async function call(operation, payload) {
    const answer = parse(await hostCall.apply(undefined, [operation, stringify(payload)], callOptions));
    if (answer.ok) return answer.value;
    const error = new ErrorClass(answer.message);
    if (answer.code !== undefined) error.code = answer.code;
    throw error;
  }

  function formatLogPart(value) {
    if (typeof value === 'string') return value;
    try {
      const text = stringify(value);
      return text === undefined ? String(value) : text;
    } catch {
      return String(value);
    }
  }
  function logger(level) {
    return function () {
      let line = '';
      for (let index = 0; index < arguments.length; index += 1) {
        line += (index === 0 ? '' : ' ') + formatLogPart(arguments[index]);
      }
      // Synchronous: a line logged just before main() returns must be there when its result is.
      hostLog.applySync(undefined, [level, line], logOptions);
    };
  }

  const navAction = (action) => function () {
    return call('nav', { action, args: Array.prototype.slice.call(arguments) });
  };

  const g = freeze({
    tool: freeze({ args: deepFreeze(parse(argsJson)) }),
    http: freeze({
      makeHttpRequest(request) {
        return call('http', request === undefined ? {} : request);
      },
    }),
    secrets: freeze({
      getSecret(name) {
        return call('secret', { name: String(name) });
      },
    }),
    nav: freeze({
      navigateToUrl: navAction('navigateToUrl'),
      getText: navAction('getText'),
      click: navAction('click'),
      fill: navAction('fill'),
      screenshot: navAction('screenshot'),
    }),
  });

  function deepFreeze(value) {
    if (typeof value === 'object' && value !== null) {
      for (const key of Object.keys(value)) deepFreeze(value[key]);
      freeze(value);
    }
    return value;
  }

  Object.defineProperty(globalThis, 'g', { value: g, enumerable: true });
  Object.defineProperty(globalThis, 'console', {
    value: freeze({ log: logger('log'), info: logger('info'), warn: logger('warn'), error: logger('error'),
      debug: logger('debug') }),
    enumerable: false,
  });

  // Runs main() and hands back one text: "V" + the value's JSON, or "E" + JSON of what the script threw (message and
  // stack). The value is not wrapped in another JSON document: a 1 MB result is stringified once and parsed once.
  return async function runMain(filename) {
    try {
      if (typeof globalThis.main !== 'function') {
        throw new ErrorClass('The script does not define a main() function (async function main() { ... }).');
      }
      const value = await globalThis.main();
      return 'V' + strictJson(value);
    } catch (error) {
      if (error !== null && typeof error === 'object' && error.__toolportSerialization === true) {
        return 'E' + stringify({ serialization: true, message: error.message });
      }
      let message;
      let stack;
      try {
        message = error instanceof ErrorClass ? String(error.message) : String(error);
        stack = error instanceof ErrorClass ? String(error.stack) : undefined;
      } catch {
        message = 'The script threw a value that cannot be described.';
      }
      return 'E' + stringify({ message, stack, filename });
    }
  };

  // JSON only: functions, symbols, bigints, non-finite numbers and cycles are refused with the path where they are.
  function strictJson(value) {
    if (value === undefined) return 'null';
    const seen = [];
    const fail = (path, what) => {
      const error = new ErrorClass('main() returned ' + what + ' at ' + path + ', which is not JSON. ' +
        'Return plain objects, arrays, strings, numbers, booleans or null.');
      error.__toolportSerialization = true;
      throw error;
    };
    const check = (item, path) => {
      const type = typeof item;
      if (type === 'function') fail(path, 'a function');
      if (type === 'symbol') fail(path, 'a symbol');
      if (type === 'bigint') fail(path, 'a bigint');
      if (type === 'number' && !Number.isFinite(item)) fail(path, String(item));
      if (type !== 'object' || item === null) return; // undefined members are left out, as JSON.stringify does
      if (seen.includes(item)) fail(path, 'a cycle');
      seen.push(item);
      if (Array.isArray(item)) {
        for (let index = 0; index < item.length; index += 1) check(item[index], path + '[' + index + ']');
      } else if (typeof item.toJSON !== 'function') {
        for (const key of Object.keys(item)) check(item[key], path + '.' + key);
      }
      seen.pop();
    };
    check(value, 'result');
    return stringify(value);
  }
})`;
