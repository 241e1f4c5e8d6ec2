import assert from 'node:assert/strict';
import { acceptsEventStream } from '../../../src/gateway/http/accepts';

describe('acceptsEventStream: the Accept header of the GET stream', () => {
  it('takes the type named, in any case, among others, with parameters and a q above 0', () => {
    for (const accept of [
      'text/event-stream',
      'Text/Event-Stream',
      'application/json, text/event-stream',
      'text/event-stream; charset=utf-8',
      'text/event-stream;q=0.5',
      'text/event-stream; Q = 1',
    ]) {
      assert.equal(acceptsEventStream(accept), true, accept);
    }
  });

  it('takes the wildcards, as HTTP reads them', () => {
    for (const accept of ['*/*', 'text/*', 'application/json, */*;q=0.1']) {
      assert.equal(acceptsEventStream(accept), true, accept);
    }
  });

  it('refuses no header, another type, a name it only contains, and a q of 0', () => {
    for (const accept of [
      undefined,
      '',
      'application/json',
      'text/event-streams',
      'x-text/event-stream',
      'application/json; profile="text/event-stream"',
      'text/event-stream;q=0',
      'text/event-stream;q=0.000',
      'text/*;q=0',
    ]) {
      assert.equal(acceptsEventStream(accept), false, String(accept));
    }
  });

  it('lets the most specific matching range decide', () => {
    assert.equal(acceptsEventStream('text/event-stream;q=0, */*'), false);
    assert.equal(acceptsEventStream('*/*, text/event-stream;q=0'), false);
    assert.equal(acceptsEventStream('text/*;q=0, text/event-stream'), true);
    assert.equal(acceptsEventStream('*/*;q=0, text/*'), true);
  });

  it('reads a comma or a semicolon in a quoted parameter value as part of that value', () => {
    for (const [accept, takes] of [
      ['text/event-stream;a="x;q=0"', true],
      ['*/*; a="x; q=0"', true],
      ['text/event-stream;a="x,y", application/json', true],
      ['text/event-stream;a="x\\"; q=0", application/json', true],
      ['application/json;a="x,text/event-stream,y"', false],
      ['application/json;a="x, text/event-stream;q=1"', false],
    ] as const) {
      assert.equal(acceptsEventStream(accept), takes, accept);
    }
  });
});
