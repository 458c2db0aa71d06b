/**
 * Report templates in Chromium (/privateTemplate, /publictemplate: views/templatePrivate
 * and views/templatePublic on the generic list with its class tree), as the
 * radiologist of hospital A (13800000004: private templates all rights, public ones
 * to read) and the senior (13800000005: public ones too):
 * 1. private: the tree holds the demo classes; a new template with a new class: the
 *    name and both classes are required and at most 16 characters, as the form says
 *    before the server would; saved, it is in the list, in the tree beside it and in
 *    GET template/tree; its class node filters the list; the class is renamed from the
 *    tree (at most 16 characters) and the template follows; edit renames the template;
 *    delete removes it and its class from the tree
 * 2. public: the radiologist reads them (no create, edit or delete, and the server
 *    refuses a public save); the senior creates one for the central hospital, which
 *    the tree of his hospital then holds
 * Screenshots: tests/.artifacts/templates-*.png (1920x1080).
 */
import { translate } from '../../locales';
import { authed, login } from '../support/auth';
import { signInBrowser, openBrowser, startSignedIn, stopSignedIn, type BrowserSession } from '../support/browser';
import type { InProcessPlatform } from '../support/inprocess';
import { ResourceListPage, SchemaFormPage, settled } from '../support/schemaPages';
import { DEMO_PASSWORD } from '../../mock/identity';

const zh = (key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params);
const T = '/api/report/v1/template';
const SCREEN = { width: 1920, height: 1080 };

type TreeNode = { name: string; children?: TreeNode[] };

describe('report templates in Chromium', () => {
  let server: InProcessPlatform;
  let b: BrowserSession;
  let senior: BrowserSession | undefined;
  let list: ResourceListPage;
  let docA: string;
  const stamp = String(Date.now()).slice(-5);

  const toast = (session: BrowserSession, text: string) => session.page.locator('.ant-message-notice').filter({ hasText: text }).first();
  const tree = async (token: string, scope: 'public' | 'private') =>
    ((await server.app.inject({ method: 'GET', url: `${T}/tree?scope=${scope}`, headers: authed(token) })).json() as { data: TreeNode[] }).data;
  /** Opens a template list and waits until it shows its first answer. */
  const openList = async (l: ResourceListPage, session: BrowserSession, path: string) => {
    const listed = session.page.waitForResponse((r) => r.url().endsWith(`${T}/list`));
    await l.open(path);
    await l.showing(await listed);
  };
  const treeNode = (session: BrowserSession, names: string[]) => session.page.locator(`[data-testid="filter-tree-node"][data-key='${JSON.stringify(names)}']`);

  beforeAll(async () => {
    ({ server, b } = await startSignedIn('13800000004'));
    await b.page.setViewportSize(SCREEN);
    list = new ResourceListPage(b.page, server.url);
    docA = await login(server.app, '13800000004');
  }, 180_000);
  afterAll(async () => {
    await senior?.close();
    await stopSignedIn(server, b);
  });

  test('private: create with a new class (limits on the fields), in the tree and its call, filter by class, edit, delete', async () => {
    const { page } = b;
    const modal = page.getByTestId('form-modal');
    const form = new SchemaFormPage(page, modal);
    const className2 = `新类${stamp}`;
    const name = `模板${stamp}`;
    await openList(list, b, '/privateTemplate');
    await treeNode(b, ['常用']).waitFor();
    expect(await list.rows().filter({ hasText: '我的胸部正常' }).count()).toBe(1);

    await page.getByTestId('create').click();
    await modal.waitFor();
    await page.getByTestId('form-modal-save').click();
    for (const field of ['className1', 'className2', 'templateName']) {
      await form
        .field(field)
        .getByText(zh('validation.required', { field: zh(`entity.template.field.${field}`) }))
        .waitFor();
    }
    // 17 characters: one more than the name and the classes may have.
    await form.fill('className1', '一二三四五六七八九十一二三四五六七');
    await form.fill('className2', className2);
    await form.fill('templateName', '一二三四五六七八九十一二三四五六七');
    await page.getByTestId('form-modal-save').click();
    for (const field of ['className1', 'templateName']) {
      await form
        .field(field)
        .getByText(zh('validation.maxLength', { field: zh(`entity.template.field.${field}`), limit: 16 }))
        .waitFor();
    }
    expect(await modal.isVisible()).toBe(true);
    await form.fill('className1', 'CT');
    await form.fill('templateName', name);
    await form.field('see').locator('textarea').fill('双肺纹理清晰，未见实质性病变。');
    await form.field('diagnosis').locator('textarea').fill('胸部CT平扫未见异常。');
    await settled(page);
    await b.shot('templates-private-form');
    await page.getByTestId('form-modal-save').click();
    await toast(b, zh('entity.action.saved')).waitFor();
    await modal.waitFor({ state: 'detached' });

    // In the list, in the tree beside it (reloaded after the save), and in the tree call.
    await list.row(name).waitFor();
    await treeNode(b, ['CT', className2]).waitFor();
    const classes = await tree(docA, 'private');
    expect(classes.find((c) => c.name === 'CT')?.children?.find((c) => c.name === className2)?.children).toEqual([
      expect.objectContaining({ templateName: name, see: '双肺纹理清晰，未见实质性病变。', diagnosis: '胸部CT平扫未见异常。' }),
    ]);
    // The class node filters the list to its templates.
    const filtered = page.waitForResponse(
      (r) => r.url().endsWith(`${T}/list`) && (r.request().postDataJSON() as { filters?: Record<string, unknown> }).filters?.className2 === className2,
    );
    await treeNode(b, ['CT', className2]).click();
    await list.showing(await filtered);
    expect(await list.rows().count()).toBe(1);
    await b.shot('templates-private-tree');

    // Rename the class from the tree: held to the class's 16 characters; the template follows.
    const renamed = `改类${stamp}`;
    await treeNode(b, ['CT', className2]).getByTestId('filter-tree-rename').click();
    await page.getByTestId('filter-tree-rename-name').fill('一二三四五六七八九十一二三四五六七');
    await page.getByTestId('filter-tree-rename-ok').click();
    await page.getByText(zh('validation.maxLength', { field: zh('entity.tree.name'), limit: 16 })).waitFor();
    await page.getByTestId('filter-tree-rename-name').fill(renamed);
    await settled(page);
    await b.shot('templates-rename');
    await page.getByTestId('filter-tree-rename-ok').click();
    await toast(b, zh('entity.tree.renameDone')).waitFor();
    await treeNode(b, ['CT', renamed]).waitFor();
    await list.row(name).filter({ hasText: renamed }).waitFor();
    expect(JSON.stringify(await tree(docA, 'private'))).not.toContain(className2);

    await list.row(name).getByTestId('row-edit').click();
    await page.waitForFunction(() => (document.querySelector('[data-testid="field-templateName"] input') as HTMLInputElement | null)?.value !== '');
    await form.fill('templateName', `${name}改`);
    await page.getByTestId('form-modal-save').click();
    await modal.waitFor({ state: 'detached' });
    await list.row(`${name}改`).waitFor();

    await list.row(`${name}改`).getByTestId('row-delete').click();
    await page.getByTestId('row-delete-ok').click();
    await toast(b, zh('entity.action.deleted')).waitFor();
    await list.row(`${name}改`).waitFor({ state: 'detached' });
    // Its class had no other template: gone from the tree and from the call.
    await treeNode(b, ['CT', renamed]).waitFor({ state: 'detached' });
    expect(JSON.stringify(await tree(docA, 'private'))).not.toContain(renamed);
  }, 120_000);

  test('public: read-only without the rights (the server refuses a save); the senior creates one for his hospital', async () => {
    const { page } = b;
    await openList(list, b, '/publictemplate');
    await treeNode(b, ['CT']).waitFor();
    expect(await list.rows().count()).toBeGreaterThan(0);
    expect(await page.getByTestId('create').count()).toBe(0);
    expect(await page.getByTestId('row-edit').count()).toBe(0);
    expect(await page.getByTestId('row-delete').count()).toBe(0);
    expect(await page.getByTestId('row-detail').count()).toBeGreaterThan(0);
    const refused = await server.app.inject({
      method: 'POST',
      url: `${T}/save`,
      headers: authed(docA),
      payload: { scope: 'public', className1: 'CT', className2: '胸部', templateName: `公共${stamp}` },
    });
    expect(refused.json().status).toBe('UAA103');

    senior = await openBrowser();
    await senior.page.setViewportSize(SCREEN);
    await signInBrowser(senior.page, server, '13800000005', DEMO_PASSWORD);
    const seniorList = new ResourceListPage(senior.page, server.url);
    const modal = senior.page.getByTestId('form-modal');
    const form = new SchemaFormPage(senior.page, modal);
    const name = `公共${stamp}`;
    await openList(seniorList, senior, '/publictemplate');
    await senior.page.getByTestId('create').click();
    await modal.waitFor();
    await form.fill('className1', 'CT');
    await form.fill('className2', `共享${stamp}`);
    await form.fill('templateName', name);
    await form.field('see').locator('textarea').fill('肝脏形态大小正常。');
    await form.field('diagnosis').locator('textarea').fill('上腹部CT平扫未见异常。');
    await senior.page.getByTestId('form-modal-save').click();
    await toast(senior, zh('entity.action.saved')).waitFor();
    await seniorList.row(name).waitFor();
    // Filed for the senior's own hospital: his tree holds it.
    await treeNode(senior, ['CT', `共享${stamp}`]).waitFor();
    expect(await seniorList.row(name).textContent()).toContain('县中心医院');
    await settled(senior.page);
    await senior.shot('templates-public');
  }, 120_000);
});
