/**
 * HIS interfaces in Chromium, as the regional administrator (13800000001): the admin
 * entity declared by its view alone (schema, view, migration, locale keys) has its
 * sidebar entry under the admin centre and its list; the add form refuses a URL
 * without a scheme, as the server does, and accepts one with an IP host and a port
 * (http://10.1.1.5:8080/his), which Formily's own url rule used to refuse; the saved
 * row is found with the query bar and deleted.
 */
import { translate } from '../../locales';
import { startSignedIn, stopSignedIn, type BrowserSession } from '../support/browser';
import type { InProcessPlatform } from '../support/inprocess';
import { ResourceListPage, SchemaFormPage } from '../support/schemaPages';

const zh = (key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params);

describe('HIS interfaces in Chromium', () => {
  let server: InProcessPlatform;
  let b: BrowserSession;
  let list: ResourceListPage;
  const stamp = String(Date.now()).slice(-5);

  beforeAll(async () => {
    ({ server, b } = await startSignedIn('13800000001'));
    list = new ResourceListPage(b.page, server.url);
  }, 180_000);
  afterAll(() => stopSignedIn(server, b));

  test('menu entry, list, a URL refused and one with an IP host accepted, delete', async () => {
    const { page } = b;
    const name = `HIS${stamp}`;
    const modal = page.getByTestId('form-modal');
    const form = new SchemaFormPage(page, modal);
    await list.open('/hisInterface');
    await page.locator('.ant-menu').getByText(zh('menu.hisInterface'), { exact: true }).waitFor();

    await page.getByTestId('create').click();
    await form.choose('hospitalId', '第一乡镇卫生院');
    await form.fill('name', name);
    await form.fill('url', 'his.example.cn/api');
    await page.getByTestId('form-modal-save').click();
    const urlError = modal.getByTestId('field-url').getByText(zh('validation.format', { field: zh('entity.hisInterface.field.url') }));
    await urlError.waitFor();
    await form.fill('url', 'http://10.1.1.5:8080/his');
    await form.fill('contactEmail', 'his@hosp.example.cn');
    await form.fill('contactMobile', '13912345678');
    await urlError.waitFor({ state: 'detached' });
    await b.shot('his-interface-form');
    await page.getByTestId('form-modal-save').click();
    await page.locator('.ant-message-notice').filter({ hasText: zh('entity.action.saved') }).first().waitFor();
    await modal.waitFor({ state: 'detached' });

    await list.search({ name: stamp });
    const row = list.row(name);
    expect(await row.textContent()).toContain('http://10.1.1.5:8080/his');
    await b.shot('his-interface-list');

    await row.getByTestId('row-delete').click();
    await page.getByTestId('row-delete-ok').click();
    await row.waitFor({ state: 'detached' });
  }, 120_000);
});
