/**
 * A walk-in at the front desk of hospital A, in Chromium, as its clerk (13800000002),
 * with the hospital's "check in on registration" off (set by the administrator through
 * the API, as the hospital's form would):
 * 1. /examCreate: 上级医院 offers the hospital's superiors (县中心医院, 区域影像中心), not
 *    the clerk's own hospital; a chosen exam item fills its row's part (胸部 CT → 肺);
 *    the exam saves as a walk-in, not yet on the Modality Worklist (findscu -W finds
 *    nothing for its accession number)
 * 2. /examination: the walk-in's row offers check-in (到检); checked in, the row no
 *    longer offers it and findscu -W (as the hospital's CT, A_CT1) finds it, with its
 *    Chinese name
 */
import { execFile } from 'node:child_process';
import { translate } from '../../locales';
import { startDicomListener, type DicomListener } from '../../server/dicom/listener';
import { authed, login } from '../support/auth';
import { startSignedIn, stopSignedIn, type BrowserSession } from '../support/browser';
import type { InProcessPlatform } from '../support/inprocess';
import { ResourceListPage, SchemaFormPage, settled } from '../support/schemaPages';

const zh = (key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params);

/** findscu -W as A_CT1 for one accession number: the patient names (ideographic) it answers. */
function worklistNames(port: number, accession: string): Promise<string[]> {
  const args = ['-W', '-aet', 'A_CT1', '-aec', 'RCLOUD', '-k', 'SpecificCharacterSet=ISO_IR 192', '-k', 'PatientName', '-k', `AccessionNumber=${accession}`, '127.0.0.1', String(port)];
  return new Promise((resolve, reject) => {
    execFile('findscu', ['-v', ...args], { encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`findscu failed: ${stderr}`));
      const out = `${stdout}${stderr}`;
      // Responses only: the request's PatientName has no value. Names are "Pinyin^Name=中文名", space-padded.
      resolve([...out.matchAll(/\(0010,0010\) PN \[([^\]]*)\]/g)].map((m) => (m[1].split('=')[1] ?? m[1]).trim()));
    });
  });
}

describe('a walk-in checked in at the front desk reaches the worklist, in Chromium', () => {
  let server: InProcessPlatform;
  let b: BrowserSession;
  let listener: DicomListener;
  let admin: string;
  let hospitalA: number;
  let exam: { id: number; examCode: string };
  const stamp = String(Date.now()).slice(-4);
  const digits = '零一二三四五六七八九';
  const name = `步${[...stamp].map((d) => digits[Number(d)]).join('')}`;

  const setCheckInOnRegistration = async (on: boolean) => {
    const org = (await server.app.inject({ method: 'GET', url: `/api/ucenter/v1/org/detail/${hospitalA}`, headers: authed(admin) })).json().data;
    const { parentName: _p, createdAt: _c, ...body } = org;
    const r = await server.app.inject({ method: 'POST', url: '/api/ucenter/v1/org/save', headers: authed(admin), payload: { ...body, checkInOnRegistration: on } });
    expect(r.json().status).toBe('0');
  };

  beforeAll(async () => {
    ({ server, b } = await startSignedIn('13800000002'));
    listener = await startDicomListener(server.app, { aeTitle: 'RCLOUD', port: 0, host: '127.0.0.1' });
    admin = await login(server.app, '13800000001');
    hospitalA = (await server.db.query<{ id: number }>("SELECT id FROM org WHERE code = 'HOSP_A'")).rows[0].id;
    await setCheckInOnRegistration(false);
  }, 180_000);
  afterAll(async () => {
    await listener?.close();
    await stopSignedIn(server, b);
  });

  test('register a walk-in: superiors offered as 上级医院, the part filled from the item; not on the worklist yet', async () => {
    const { page } = b;
    const form = await SchemaFormPage.open(page, `${server.url}/examCreate`);
    await form.enter([
      ['hisPatientName', 'fill', name],
      ['sex', 'choose', zh('code.sex.2')],
      ['age', 'fill', '67'],
      ['ageUnit', 'choose', zh('code.ageUnit.4')],
      ['hospitalId', 'choose', '第一乡镇卫生院'],
      ['patientSource', 'choose', zh('code.patientSource.1')],
      ['outPatientNo', 'fill', `MZ${stamp}`],
      ['deviceId', 'choose', 'CT 机'],
    ]);
    await form.field('clinicalDiagnosis').locator('textarea').fill('咳嗽两周');

    // The higher-level hospital: the superiors of hospital A, nearest first, and nothing else.
    await settled(page);
    await form.field('superiorHospitalId').locator('.ant-select-selector').click();
    const options = page.locator('.ant-select-dropdown:visible .ant-select-item-option');
    await options.first().waitFor();
    expect(await options.allTextContents()).toEqual(['县中心医院', '区域影像中心']);
    await settled(page);
    await b.shot('walkin-superiors');
    await options.filter({ hasText: '县中心医院' }).click();
    await page.locator('.ant-select-dropdown:visible').waitFor({ state: 'detached' });

    // The exam part follows the chosen item.
    await form.choose('items.itemId', '胸部 CT 平扫');
    await form.field('items.organId').locator('.ant-select-selection-item').filter({ hasText: '肺' }).waitFor();
    await settled(page);
    await form.field('superiorHospitalId').scrollIntoViewIfNeeded();
    await b.shot('walkin-register-form');

    const saved = page.waitForResponse((r) => r.url().endsWith('/api/ris/v1/exam/save'));
    await page.getByTestId('form-save').click();
    const reply = await (await saved).json();
    expect(reply.status).toBe('0');
    expect(reply.data).toMatchObject({ appointment: false, superiorHospitalId: (await server.db.query<{ id: number }>("SELECT id FROM org WHERE code = 'CENTRAL'")).rows[0].id });
    expect(reply.data.items[0].organName).toBe('肺');
    expect(reply.data.arrivedAt).toBeUndefined();
    exam = { id: reply.data.id, examCode: reply.data.examCode };
    await page.waitForURL('**/examination');
    expect(await worklistNames(listener.port, exam.examCode)).toEqual([]);
  }, 120_000);

  test('check the walk-in in from its row: findscu -W finds it', async () => {
    const { page } = b;
    const list = new ResourceListPage(page, server.url);
    await list.open('/examination');
    await list.search({ examCode: exam.examCode });
    const row = list.row(exam.examCode);
    const checkin = row.getByTestId('row-action-checkin');
    await checkin.waitFor();
    await row.scrollIntoViewIfNeeded();
    await b.shot('walkin-row-checkin');
    const done = page.waitForResponse((r) => r.url().endsWith(`/api/ris/v1/exam/checkin/${exam.id}`));
    await checkin.click();
    expect((await (await done).json()).status).toBe('0');
    await page.locator('.ant-message-notice').filter({ hasText: zh('entity.exam.action.checkinDone') }).first().waitFor();
    await checkin.waitFor({ state: 'detached' });
    expect(await worklistNames(listener.port, exam.examCode)).toEqual([name]);
  }, 120_000);
});
