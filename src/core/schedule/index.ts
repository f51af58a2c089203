export { type Cron, type CronParse, dayMatches, parseCron } from './cron.ts';
export { instantOf, isTimeZone, nextFire, wallTime } from './next-fire.ts';
