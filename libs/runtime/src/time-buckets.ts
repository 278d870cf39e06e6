/**
 * UTC time buckets named by the start of an instant's ISO string, which sort and compare as text
 * and make top-level equality filters (what FerretDB pushes down): the expiry day of retention
 * (`YYYY-MM-DD`) and the minute of the webhook stall check (`YYYY-MM-DDTHH:MM`).
 */
export interface TimeBucket {
  ms: number;
  /** How many characters of the ISO string name the bucket. */
  chars: number;
}

export const UTC_DAY: TimeBucket = { ms: 24 * 60 * 60 * 1000, chars: 10 };
export const UTC_MINUTE: TimeBucket = { ms: 60 * 1000, chars: 16 };

/** The bucket an instant falls in. */
export function bucketOf(bucket: TimeBucket, at: Date | number): string {
  return new Date(at).toISOString().slice(0, bucket.chars);
}

/** When a bucket starts (ms since the epoch). */
function startOf(bucket: TimeBucket, name: string): number {
  return Date.parse(`${name}${'0000-01-01T00:00:00.000Z'.slice(name.length)}`);
}

/** The buckets after `after` up to and including `through`, oldest first, at most `max` of them. */
export function bucketsBetween(bucket: TimeBucket, after: string, through: string, max = Infinity): string[] {
  const names: string[] = [];
  const end = startOf(bucket, through);
  for (let t = startOf(bucket, after) + bucket.ms; t <= end && names.length < max; t += bucket.ms) {
    names.push(bucketOf(bucket, t));
  }
  return names;
}
