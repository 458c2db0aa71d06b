/**
 * The region's time: the region is in China Standard Time whatever zone the server or
 * the browser runs in, and its working day decides which daily counter an exam or
 * patient number comes from. Pure (Intl only), for both sides.
 */
export const REGION_TIME_ZONE = 'Asia/Shanghai';

const dayFormat = new Intl.DateTimeFormat('en-CA', { timeZone: REGION_TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' });

/** "20250314" for the region's calendar day of `at`. */
export function dayKey(at: Date): string {
  return dayFormat.format(at).replace(/-/g, '');
}
