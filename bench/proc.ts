/**
 * What the suites read of a process they started, from Linux's `/proc`: CPU time and memory. NaN where `/proc` has
 * no such process (another OS, or the process has gone).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** User + system CPU time of a process so far, in ms (`/proc/<pid>/stat`, clock ticks of 10 ms). */
export function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** CPU time a process has run so far, all its threads (GC, compiler), in ms, from the scheduler's nanoseconds. */
export function threadCpuMs(pid: number | undefined): number {
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    }
    return ns / 1e6;
  } catch {
    return Number.NaN;
  }
}

/** A memory figure of `/proc/<pid>/status` in MB: `VmRSS` (resident now) or `VmHWM` (the peak). */
export function statusMb(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1] ?? Number.NaN) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** Resident memory of a process now, MB. */
export const rssMb = (pid: number | undefined): number => statusMb(pid, 'VmRSS');
