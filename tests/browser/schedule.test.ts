/**
 * Appointment scheduling in Chromium, as the clerk of hospital A (13800000002):
 * - /examSchedule: the ultrasound device's day shows its slots; a walk-in registered
 *   through the API is booked into the first open slot from the dialog (found by
 *   name), shows under that slot and in the month cell; moved to another slot
 * - /examScheduleMatch: today's appointment awaiting arrival; check-in removes it and
 *   puts the exam on the worklist
 * - /checkDateDetail: the appointment listed as checked in
 * A rule of 5-minute slots over the whole day (added through the API) gives open slots
 * today whatever the hour: the business clock (server/lib/clock.ts) stands at the
 * region's noon of today, so a run near midnight still has afternoon slots to book into.
 */
import { translate } from '../../locales';
import { clock } from '../../server/lib/clock';
import { regionDate } from '../../server/routes/schedule';
import { authed, login } from '../support/auth';
import { startSignedIn, stopSignedIn, type BrowserSession } from '../support/browser';
import type { InProcessPlatform } from '../support/inprocess';
import { chooseIn, settled } from '../support/schemaPages';

const zh = (key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params);

describe('appointment scheduling in Chromium', () => {
  let server: InProcessPlatform;
  let b: BrowserSession;
  let exam: { id: number; examCode: string };
  const name = `预约${String(Date.now()).slice(-5)}`;
  const today = regionDate(new Date());

  beforeAll(async () => {
    ({ server, b } = await startSignedIn('13800000002'));
    // After the start, which sets the offset from the configuration.
    clock.setOffset(Date.parse(`${today}T12:00:00+08:00`) - Date.now());
    const [admin, clerk] = [await login(server.app, '13800000001'), await login(server.app, '13800000002')];
    const q = (sql: string, params: unknown[]) => server.db.query<{ id: number }>(sql, params);
    const hospitalId = (await q("SELECT id FROM org WHERE code = 'HOSP_A'", [])).rows[0].id;
    const deviceId = (await q("SELECT id FROM device WHERE ae_title = 'A_US1'", [])).rows[0].id;
    const item = (await server.db.query<{ id: number; organ_id: number }>("SELECT id, organ_id FROM exam_item WHERE hospital_id = $1 AND code = 'US001'", [hospitalId])).rows[0];
    const post = async (url: string, payload: object, token: string) => {
      const r = await server.app.inject({ method: 'POST', url, headers: authed(token), payload });
      expect(r.json().status).toBe('0');
      return r.json().data;
    };
    await post('/api/ris/v1/scheduleRule/save', { hospitalId, deviceId, weekdays: 0, startTime: '00:00', endTime: '23:55', slotMinutes: 5, capacity: 2 }, admin);
    exam = await post(
      '/api/ris/v1/exam/save',
      { hospitalId, hisPatientName: name, sex: 2, age: 30, ageUnit: 4, patientSource: 1, outPatientNo: 'MZ7001', deviceId, items: [{ itemId: item.id, organId: item.organ_id }] },
      clerk,
    );
  }, 180_000);
  afterAll(async () => {
    await stopSignedIn(server, b);
    clock.setOffset(0);
  });

  test('book a walk-in into a slot, see it on the day and the month, move it', async () => {
    const { page } = b;
    await page.goto(`${server.url}/examSchedule`);
    await page.getByTestId('schedule-calendar').waitFor();
    await chooseIn(page, page.getByTestId('schedule-target'), '彩超');
    await page.locator(`.ant-picker-calendar td[title="${today}"]`).click();
    await page.getByTestId('schedule-day').getByText(zh('entity.schedule.dayTitle', { date: today })).waitFor();

    const first = page.locator('[data-testid^="slot-book-"]').first();
    const t1 = (await first.getAttribute('data-testid'))!.replace('slot-book-', '');
    await first.click();
    await chooseIn(page, page.getByTestId('book-exam'), name);
    await page.getByTestId('book-ok').click();
    await page.locator('.ant-message-notice').filter({ hasText: zh('entity.schedule.booked.done') }).first().waitFor();
    await page.getByTestId(`slot-${t1}`).getByTestId(`booking-${exam.examCode}`).waitFor();
    expect(await page.getByTestId(`slot-${t1}`).textContent()).toContain(zh('entity.schedule.booked', { booked: 1, capacity: 2 }));
    expect(await page.getByTestId(`day-${today}`).textContent()).toMatch(/^[1-9]\d*\/\d+$/);
    await b.shot('schedule-booked');

    await page.getByTestId(`booking-move-${exam.examCode}`).click();
    await page.getByTestId('schedule-moving').waitFor();
    const target = page.locator('[data-testid^="slot-move-"]').nth(1);
    const t2 = (await target.getAttribute('data-testid'))!.replace('slot-move-', '');
    expect(t2).not.toBe(t1);
    await target.click();
    await page.getByTestId(`slot-${t2}`).getByTestId(`booking-${exam.examCode}`).waitFor();
    expect(await page.getByTestId(`slot-${t1}`).getByTestId(`booking-${exam.examCode}`).count()).toBe(0);
    await settled(page);
    await b.shot('schedule-moved');

    const log = await server.db.query<{ action: string }>('SELECT action FROM exam_log WHERE exam_id = $1 ORDER BY id', [exam.id]);
    expect(log.rows.map((r) => r.action)).toEqual(['registerExam', 'appointExam', 'modifyBooking']);
  });

  test("check in today's appointment: it leaves the list and enters the worklist", async () => {
    const { page } = b;
    await page.goto(`${server.url}/examScheduleMatch`);
    const row = page.getByTestId(`booking-row-${exam.examCode}`);
    await row.waitFor();
    expect(await row.textContent()).toContain(zh('entity.schedule.status.pending'));
    await b.shot('schedule-match');
    await page.getByTestId(`checkin-${exam.examCode}`).click();
    await page.locator('.ant-message-notice').filter({ hasText: zh('entity.schedule.checkinDone') }).first().waitFor();
    await row.waitFor({ state: 'detached' });
    const step = await server.db.query('SELECT 1 FROM worklist_steps WHERE exam_id = $1', [exam.id]);
    expect(step.rowCount).toBe(1);

    await page.goto(`${server.url}/checkDateDetail`);
    const listed = page.getByTestId(`booking-row-${exam.examCode}`);
    await listed.waitFor();
    expect(await listed.textContent()).toContain(zh('entity.schedule.status.arrived'));
    await b.shot('schedule-date-detail');
  });
});
