/**
 * The user and role screens in Chromium as the hostile insider of issue 16: hospital
 * A's IT administrator, every right but own-hospital data scope (a role of hospital A
 * the region gives it). Scenarios:
 * - /role: the region's roles offer no edit or delete, the insider's hospital's own
 *   roles do; saving its own role with all data is refused with UCENTER204's words
 * - /user: the user who is also a member of the central hospital opens for editing; a
 *   new password is refused with PACS006's words and nothing changes; a hospital A user
 *   is still edited
 * - /qcRuleList (the region's): no add, edit or delete
 */
import { translate } from '../../locales';
import { allPermissions } from '../../server/identity/access';
import { signInBrowser, openBrowser, stopSignedIn, type BrowserSession } from '../support/browser';
import { startInProcess, type InProcessPlatform } from '../support/inprocess';
import { authed, login } from '../support/auth';
import { ResourceListPage, SchemaFormPage } from '../support/schemaPages';

const zh = (key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params);
const INSIDER = { mobile: '13600000016', password: 'Insider#2026' };

describe('grants on the admin screens in Chromium', () => {
  let server: InProcessPlatform;
  let b: BrowserSession;
  let list: ResourceListPage;
  const toast = (text: string) => b.page.locator('.ant-message-notice').filter({ hasText: text }).first();

  beforeAll(async () => {
    server = await startInProcess();
    const admin = await login(server.app, '13800000001');
    const orgs = Object.fromEntries((await server.db.query<{ code: string; id: number }>('SELECT code, id FROM org')).rows.map((r) => [r.code, r.id]));
    const post = (url: string, payload: object) => server.app.inject({ method: 'POST', url, headers: authed(admin), payload }).then((r) => r.json().data);
    const role = await post('/api/ucenter/v1/role/save', { name: 'A院信息科', dataScope: 'own', permissions: allPermissions(), ownerHospitalId: orgs.HOSP_A });
    await post('/api/ucenter/v1/user/save', { mobile: INSIDER.mobile, name: '信息科', status: 1, password: INSIDER.password, memberships: [{ hospitalId: orgs.HOSP_A, roleId: role.id }] });
    b = await openBrowser();
    await signInBrowser(b.page, server, INSIDER.mobile, INSIDER.password);
    list = new ResourceListPage(b.page, server.url);
  }, 180_000);
  afterAll(() => stopSignedIn(server, b));

  test('roles: the region’s are read-only; the insider’s own role keeps its scope', async () => {
    const { page } = b;
    await list.open('/role');
    await list.row('报告医生').waitFor();
    expect(await list.row('报告医生').getByTestId('row-edit').count()).toBe(0);
    expect(await list.row('报告医生').getByTestId('row-delete').count()).toBe(0);
    expect(await list.row('报告医生').getByTestId('row-detail').count()).toBe(1);
    await b.shot('grants-role-list');

    await list.row('A院信息科').getByTestId('row-edit').click();
    const formRoot = page.locator('[data-testid="resource-form"][data-mode="edit"]');
    await formRoot.waitFor();
    const form = new SchemaFormPage(page, formRoot);
    await form.field('dataScope').getByText(zh('code.roleDataScope.own')).waitFor();
    await form.choose('dataScope', zh('code.roleDataScope.all'));
    await page.getByTestId('form-save').click();
    await toast(zh('error.UCENTER204')).waitFor();
    await b.shot('grants-own-role-refused');
    const stored = await server.db.query<{ data_scope: string }>("SELECT data_scope FROM role WHERE name = 'A院信息科'");
    expect(stored.rows[0].data_scope).toBe('own');
  }, 120_000);

  test('users: a member of the central hospital keeps its password; a hospital A user is still edited', async () => {
    const { page } = b;
    await list.open('/user');
    // A hospital A user is the insider's wholly: delete is offered; the central hospital's member offers none.
    await list.search({ mobile: '13800000002' });
    await list.row('13800000002').getByTestId('row-edit').waitFor();
    expect(await list.row('13800000002').getByTestId('row-delete').count()).toBe(1);
    await list.search({ mobile: '13800000007' });
    await list.row('13800000007').getByTestId('row-edit').waitFor();
    expect(await list.row('13800000007').getByTestId('row-delete').count()).toBe(0);
    await b.shot('grants-user-list-no-delete');
    await list.row('13800000007').getByTestId('row-edit').click();
    let formRoot = page.locator('[data-testid="resource-form"][data-mode="edit"]');
    await formRoot.waitFor();
    let form = new SchemaFormPage(page, formRoot);
    await page.waitForFunction(() => (document.querySelector('[data-testid="field-name"] input') as HTMLInputElement | null)?.value !== '');
    await form.field('password').locator('input').fill('Taken#2026');
    await page.getByTestId('form-save').click();
    await toast(zh('error.PACS006')).waitFor();
    await b.shot('grants-user-refused');
    await form.field('memberships').scrollIntoViewIfNeeded();
    await b.shot('grants-user-memberships');
    expect(await login(server.app, '13800000007')).toBeTruthy();

    await list.open('/user');
    await list.search({ mobile: '13800000002' });
    await list.row('13800000002').getByTestId('row-edit').click();
    formRoot = page.locator('[data-testid="resource-form"][data-mode="edit"]');
    await formRoot.waitFor();
    form = new SchemaFormPage(page, formRoot);
    await page.waitForFunction(() => (document.querySelector('[data-testid="field-name"] input') as HTMLInputElement | null)?.value !== '');
    await form.fill('workNo', 'A0002X');
    await page.getByTestId('form-save').click();
    await toast(zh('entity.action.saved')).waitFor();
    await page.waitForURL('**/user');
  }, 120_000);

  test('the region’s QC rules: listed without add, edit or delete', async () => {
    const { page } = b;
    await list.open('/qcRuleList');
    await list.rows().first().waitFor();
    // The toolbar follows the list's answer.
    await page.getByTestId('create').waitFor({ state: 'detached' });
    expect(await list.rows().first().getByTestId('row-edit').count()).toBe(0);
    await b.shot('grants-qc-rules-read-only');
  }, 60_000);
});
