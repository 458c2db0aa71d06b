/**
 * The schema-driven admin screens in Chromium, as the regional administrator
 * (13800000001), against the platform running in this process so the test can read
 * captcha answers from its database. Scenarios:
 * - departments (/departmentList, form in a modal): add one, find it with the query
 *   bar, edit it, delete it after the confirmation
 * - users: add one on /addUser with a membership (hospital, role, department; the
 *   department list follows the hospital); before the first save the signature field
 *   says the picture comes later. Find the user on /user and open its detail
 *   (read-pretty). Edit: a picture of the wrong pixel size or type is refused before
 *   anything is sent; a 200x130 PNG is uploaded and shown, and the detail shows it.
 *   Disable the user; the list says so
 * - unlock: four wrong passwords through the login API (the captcha answered from the
 *   database from the second on) lock 13800000003; the /user list offers unlock on
 *   that row only; after the confirmation the action is gone and the right password
 *   logs in
 */
import app from '../../config/app.json';
import { translate } from '../../locales';
import { signaturePng as png } from '../support/images';
import { DEMO_PASSWORD } from '../../mock/identity';
import { startSignedIn, stopSignedIn, type BrowserSession } from '../support/browser';
import type { InProcessPlatform } from '../support/inprocess';
import { ResourceListPage, SchemaFormPage } from '../support/schemaPages';

const zh = (key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params);


describe('admin screens in Chromium', () => {
  let server: InProcessPlatform;
  let b: BrowserSession;
  let list: ResourceListPage;
  const stamp = String(Date.now()).slice(-6);

  const toast = (text: string) => b.page.locator('.ant-message-notice').filter({ hasText: text }).first();

  beforeAll(async () => {
    ({ server, b } = await startSignedIn('13800000001'));
    list = new ResourceListPage(b.page, server.url);
  }, 180_000);
  afterAll(() => stopSignedIn(server, b));

  test('departments: add in the modal, find with the query bar, edit, delete after confirming', async () => {
    const { page } = b;
    const name = `测试科室${stamp}`;
    const renamed = `影像测试科${stamp}`;
    await list.open('/departmentList');
    await page.getByTestId('create').click();
    const modal = page.getByTestId('form-modal');
    const form = new SchemaFormPage(page, modal);
    await form.choose('hospitalId', '第一乡镇卫生院');
    await form.fill('code', `T${stamp}`);
    await form.fill('name', name);
    await form.fill('shortcut', 'CSK');
    await b.shot('admin-department-modal');
    await page.getByTestId('form-modal-save').click();
    await toast(zh('entity.action.saved')).waitFor();
    await modal.waitFor({ state: 'detached' });

    await list.search({ name: stamp });
    expect(await list.rows().count()).toBe(1);
    expect(await list.row(name).textContent()).toContain('第一乡镇卫生院');

    await list.row(name).getByTestId('row-edit').click();
    await form.field('name').locator('input').waitFor();
    await page.waitForFunction(() => (document.querySelector('[data-testid="field-name"] input') as HTMLInputElement | null)?.value !== '');
    expect(await form.field('code').locator('input').inputValue()).toBe(`T${stamp}`);
    await form.fill('name', renamed);
    await page.getByTestId('form-modal-save').click();
    await modal.waitFor({ state: 'detached' });
    await list.row(renamed).waitFor();
    expect(await list.row(name).count()).toBe(0);

    await list.row(renamed).getByTestId('row-delete').click();
    await page.getByText(zh('entity.action.deleteConfirm', { name: renamed })).waitFor();
    await page.getByTestId('row-delete-ok').click();
    await toast(zh('entity.action.deleted')).waitFor();
    await list.row(renamed).waitFor({ state: 'detached' });
    await list.search({ name: stamp });
    expect(await list.rows().count()).toBe(0);
  }, 120_000);

  test('users: add with a membership, read its detail, upload a signature picture, disable it', async () => {
    const { page } = b;
    const mobile = `139${stamp}88`;
    const name = `测试用户${stamp}`;
    await page.goto(`${server.url}/addUser`);
    const formRoot = page.locator('[data-testid="resource-form"][data-mode="create"]');
    await formRoot.waitFor();
    const form = new SchemaFormPage(page, formRoot);
    // No id yet: nothing to attach a picture to.
    await form.field('signature').getByText(zh('entity.upload.afterSave')).waitFor();
    await form.fill('mobile', mobile);
    await form.fill('username', `test${stamp}`);
    await form.fill('name', name);
    await form.field('password').locator('input').fill('Test@2026x');
    await form.choose('title', zh('code.doctorTitle.1'));
    await form.choose('memberships.hospitalId', '第一乡镇卫生院');
    await form.choose('memberships.roleId', '技师');
    await form.choose('memberships.departmentId', '放射科');
    await page.evaluate(() => window.scrollTo(0, 0));
    await b.shot('admin-user-form-new');
    await page.getByTestId('form-save').click();
    await toast(zh('entity.action.saved')).waitFor();
    await page.waitForURL('**/user');

    await list.settled();
    await list.search({ mobile });
    const row = list.row(mobile);
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toContain('第一乡镇卫生院');
    expect(await row.textContent()).toContain('技师');

    // Detail: read-pretty, no inputs, the membership by name, no picture yet.
    await row.getByTestId('row-detail').click();
    const detail = page.locator('[data-testid="resource-form"][data-mode="detail"]');
    await detail.waitFor();
    const readForm = new SchemaFormPage(page, detail);
    await readForm.field('name').getByText(name).waitFor();
    await readForm.field('memberships').getByText('放射科').waitFor();
    expect(await detail.locator('input').count()).toBe(0);
    expect(await readForm.field('signature').locator('.ant-formily-item-control').textContent()).toBe('-');

    // Edit: the picture is checked here before anything is sent, then uploaded.
    await page.getByTestId('form-edit').click();
    const editRoot = page.locator('[data-testid="resource-form"][data-mode="edit"]');
    await editRoot.waitFor();
    const edit = new SchemaFormPage(page, editRoot);
    const upload = edit.field('signature').getByTestId('image-upload');
    await upload.getByTestId('image-upload-choose').waitFor();
    const posted: string[] = [];
    // The picture goes to the file service (purpose signature, owned by this user).
    page.on('request', (r) => r.method() === 'POST' && r.url().includes('/api/file/v1/upload') && posted.push(r.url()));
    const input = upload.locator('input[type="file"]');

    await input.setInputFiles({ name: 'wrong.png', mimeType: 'image/png', buffer: png(100, 100) });
    const problem = upload.getByTestId('image-upload-error');
    expect(await problem.textContent()).toBe(
      zh('entity.upload.badSize', { width: 200, height: 130, actualWidth: 100, actualHeight: 100 }),
    );
    await input.setInputFiles({ name: 'sign.gif', mimeType: 'image/gif', buffer: Buffer.from('GIF89a') });
    await problem.getByText(zh('entity.upload.badType', { types: 'JPG / PNG' })).waitFor();
    expect(posted).toEqual([]);

    const saved = page.waitForResponse((r) => r.url().includes('/api/file/v1/upload?') && r.request().method() === 'POST');
    await input.setInputFiles({ name: 'sign.png', mimeType: 'image/png', buffer: png(200, 130) });
    expect((await (await saved).json()).status).toBe('0');
    await toast(zh('entity.upload.uploaded')).waitFor();
    const picture = upload.getByTestId('image-upload-picture');
    await picture.waitFor();
    await page.waitForFunction(() => {
      const img = document.querySelector('[data-testid="image-upload-picture"]') as HTMLImageElement | null;
      return !!img && img.complete && img.naturalWidth === 200 && img.naturalHeight === 130;
    });
    expect(await problem.count()).toBe(0);
    expect(posted).toHaveLength(1);
    expect(new URL(posted[0]).searchParams.get('purpose')).toBe('signature');
    await edit.field('signature').scrollIntoViewIfNeeded();
    await b.shot('admin-user-form-signature');

    // Disable, save, and the list says so.
    await edit.choose('status', zh('code.userStatus.0'));
    await page.getByTestId('form-save').click();
    await toast(zh('entity.action.saved')).waitFor();
    await page.waitForURL('**/user');
    await list.settled();
    await list.search({ mobile });
    expect(await list.row(mobile).textContent()).toContain(zh('code.userStatus.0'));

    // The detail shows the stored picture (fetched with the session's headers).
    await list.row(mobile).getByTestId('row-detail').click();
    await page.locator('[data-testid="resource-form"][data-mode="detail"]').waitFor();
    await page.waitForFunction(() => {
      const img = document.querySelector('[data-testid="field-signature"] img') as HTMLImageElement | null;
      return !!img && img.complete && img.naturalWidth === 200 && img.src.startsWith('blob:');
    });
    await page.getByTestId('field-signature').scrollIntoViewIfNeeded();
    await b.shot('admin-user-detail');

    // A disabled account cannot log in.
    const r = await loginCall(mobile, 'Test@2026x');
    expect(r.status).toBe('UAA003');
  }, 180_000);

  /** POST /api/uaa/v1/login as the login page sends it (form-encoded, password base64). */
  async function loginCall(mobile: string, password: string, captcha: Record<string, string> = {}) {
    const body = new URLSearchParams({ loginType: 'password', mobile, password: Buffer.from(password).toString('base64'), ...captcha });
    const r = await fetch(`${server.url}/api/uaa/v1/login`, {
      method: 'POST',
      headers: { 'X-App-Id': app.clientAppId, 'Content-Type': 'application/x-www-form-urlencoded' },
      body,
    });
    return (await r.json()) as { status: string; data?: { token: string } };
  }

  /** A fresh captcha and its answer, read from the database as a demo operator would. */
  async function solvedCaptcha(): Promise<Record<string, string>> {
    const r = await fetch(`${server.url}/api/uaa/v1/captcha`, { headers: { 'X-App-Id': app.clientAppId } });
    const { captchaKey } = (await r.json()).data as { captchaKey: string };
    const { rows } = await server.db.query<{ answer: string }>('SELECT answer FROM captcha WHERE key = $1', [captchaKey]);
    return { captchaKey, captchaCode: rows[0].answer };
  }

  test('unlock: a user locked by four wrong passwords is unlocked from the list and can log in', async () => {
    const { page } = b;
    const mobile = '13800000003';
    const statuses: string[] = [];
    for (let attempt = 1; attempt <= 4; attempt++) {
      statuses.push((await loginCall(mobile, 'Wrong#2026', attempt > 1 ? await solvedCaptcha() : {})).status);
    }
    expect(statuses).toEqual(['UAA002', 'UAA002', 'UAA002', 'UAA009']);
    // Locked: even the right password is refused.
    expect((await loginCall(mobile, DEMO_PASSWORD, await solvedCaptcha())).status).toBe('UAA009');

    await list.open('/user');
    const locked = list.row(mobile);
    await locked.waitFor();
    // Only the locked row offers it.
    expect(await page.getByTestId('row-action-unlock').count()).toBe(1);
    expect(await locked.getByTestId('row-action-unlock').textContent()).toBe(zh('entity.user.action.unlock'));
    await b.shot('admin-user-list-unlock');
    await locked.getByTestId('row-action-unlock').click();
    await page.getByText(zh('entity.user.action.unlockConfirm', { name: '技师小吴' })).waitFor();
    await b.shot('admin-user-list-unlock-confirm');
    const unlocked = page.waitForResponse((r) => r.url().includes('/api/ucenter/v1/user/unlock/'));
    await page.getByTestId('row-action-unlock-ok').click();
    expect((await (await unlocked).json()).status).toBe('0');
    await toast(zh('entity.user.action.unlockDone', { name: '技师小吴' })).waitFor();
    // The list reloads: the row is no longer locked, so nothing offers unlock.
    await page.getByTestId('row-action-unlock').waitFor({ state: 'detached' });
    await locked.waitFor();

    const login = await loginCall(mobile, DEMO_PASSWORD);
    expect(login.status).toBe('0');
    expect(login.data?.token).toBeTruthy();
  }, 120_000);
});
