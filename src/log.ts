// Structured JSON logging (pino). Level: RUST_LOG if set, else the config's log_level, else info.
// RUST_BACKTRACE=1 adds stack traces to logged errors; otherwise errors carry type and message.
import pino from 'pino';
import { LOG_LEVELS, type LogLevel } from './config/schema.ts';
import { openLogFile } from './logging/rotating-file.ts';

function isLevel(s: string): s is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(s);
}

/** Serializes an Error as { type, message, code?, stack?, cause?, ...own fields }. */
export function serializeError(err: unknown, withStack: boolean, depth = 0): unknown {
  if (!(err instanceof Error)) return err;
  const out: Record<string, unknown> = { type: err.name || err.constructor?.name || 'Error', message: err.message };
  for (const k of Object.keys(err)) {
    if (k === 'name' || k === 'message' || k === 'stack' || k === 'cause') continue;
    const v = (err as unknown as Record<string, unknown>)[k];
    out[k] = depth < 5 ? serializeError(v, withStack, depth + 1) : v;
  }
  if (withStack && err.stack) out.stack = err.stack;
  if (err.cause !== undefined && depth < 5) out.cause = serializeError(err.cause, withStack, depth + 1);
  return out;
}

export interface LoggerOptions {
  /** log_level from the config file; used when RUST_LOG is unset. */
  configLevel?: string;
  /** Environment to read RUST_LOG and RUST_BACKTRACE from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Where JSON lines go: a stream, or a file descriptor (default 1 = stdout, synchronous). */
  destination?: pino.DestinationStream | number;
  /** File name under $LOG_DIR (default engine.log); null = no log file even if LOG_DIR is set. */
  logFile?: string | null;
}

export function createLogger(opts: LoggerOptions = {}): pino.Logger {
  const env = opts.env ?? process.env;
  const warnings: { msg: string; fields: Record<string, unknown> }[] = [];

  let level: LogLevel = 'info';
  const rustLog = env.RUST_LOG;
  if (rustLog !== undefined && rustLog.trim() !== '') {
    const v = rustLog.trim().toLowerCase();
    if (isLevel(v)) level = v;
    else {
      warnings.push({
        msg: `invalid RUST_LOG value ${JSON.stringify(rustLog)}: expected one of ${LOG_LEVELS.join(', ')}; using info`,
        fields: { RUST_LOG: rustLog },
      });
    }
  } else if (opts.configLevel !== undefined) {
    if (isLevel(opts.configLevel)) level = opts.configLevel;
    else {
      warnings.push({
        msg: `invalid log_level ${JSON.stringify(opts.configLevel)}: expected one of ${LOG_LEVELS.join(', ')}; using info`,
        fields: { log_level: opts.configLevel },
      });
    }
  }

  const withStack = env.RUST_BACKTRACE !== undefined && env.RUST_BACKTRACE !== '' && env.RUST_BACKTRACE !== '0';
  const errSerializer = (e: unknown) => serializeError(e, withStack);
  const dest = opts.destination ?? 1;
  const primary = typeof dest === 'number' ? pino.destination({ dest, sync: true }) : dest;
  // LOG_DIR set: every line also goes to a size-bounded rotating file. Both streams take every
  // level ('trace'); the logger's level is the only filter. An unusable LOG_DIR is a warning.
  const file = opts.logFile === null ? { stream: null, warnings: [] as string[] } : openLogFile(env, { name: opts.logFile ?? undefined });
  for (const w of file.warnings) warnings.push({ msg: w, fields: { LOG_DIR: env.LOG_DIR } });
  const stream = file.stream
    ? pino.multistream([
        { level: 'trace', stream: primary },
        { level: 'trace', stream: file.stream },
      ])
    : primary;

  const logger = pino(
    {
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: errSerializer, error: errSerializer },
    },
    stream,
  );
  for (const w of warnings) logger.warn(w.fields, w.msg);
  return logger;
}
