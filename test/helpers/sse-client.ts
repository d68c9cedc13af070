// A small Server-Sent Events client over fetch for tests: records each event and comment with
// its arrival time (Date.now()), and how the stream finished.

export interface SseEvent {
  event: string;
  data: string;
  at: number;
}

export interface SseReader {
  events: SseEvent[];
  comments: { text: string; at: number }[];
  /** The last `retry:` field, or null. */
  readonly retry: number | null;
  /** True once the stream has finished, however it finished. */
  readonly ended: boolean;
  /** 'ended' when the server closed the stream, 'errored' when it broke or was aborted. */
  done: Promise<'ended' | 'errored'>;
  of(name: string): SseEvent[];
}

/** Reads the event stream of `res` in the background. */
export function readSse(res: Response): SseReader {
  const events: SseEvent[] = [];
  const comments: { text: string; at: number }[] = [];
  let retry: number | null = null;
  let ended = false;
  const done = (async (): Promise<'ended' | 'errored'> => {
    if (!res.body) return 'ended';
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    let buf = '';
    try {
      for (;;) {
        const { done: eof, value } = await reader.read();
        if (eof) return 'ended';
        buf += dec.decode(value, { stream: true });
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push({ text: line.slice(1).trim(), at: Date.now() });
            else if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
            else if (line.startsWith('retry: ')) retry = Number(line.slice(7));
          }
          if (data.length) events.push({ event, data: data.join('\n'), at: Date.now() });
        }
      }
    } catch {
      return 'errored';
    } finally {
      ended = true;
    }
  })();
  return {
    events,
    comments,
    get retry() {
      return retry;
    },
    get ended() {
      return ended;
    },
    done,
    of: (name) => events.filter((e) => e.event === name),
  };
}

/** Opens `url` as an event stream; close() aborts it and waits for the reader to finish. */
export async function openSse(url: string, init: RequestInit = {}): Promise<SseReader & { res: Response; close(): Promise<void> }> {
  const ac = new AbortController();
  const res = await fetch(url, {
    ...init,
    signal: ac.signal,
    headers: { accept: 'text/event-stream', ...(init.headers as Record<string, string> | undefined) },
  });
  const reader = readSse(res);
  return Object.assign(reader, {
    res,
    close: async () => {
      ac.abort();
      await reader.done;
    },
  });
}
