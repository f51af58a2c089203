export { type Cron, type CronParse, dayMatches, parseCron } from './cron.ts';
export { instantOf, isTimeZone, nextFire, wallTime } from './next-fire.ts';
export { type DueFire, type FirePlan, fireEvent, MAX_CATCH_UP, planFires } from './plan-fires.ts';
