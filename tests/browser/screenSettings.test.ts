/**
 * Screen settings without code, in Chromium, as the regional administrator
 * (13800000001, who holds reportPage:edit). Scenarios:
 * - /user list: hide the mobile column in the column-settings popover; in the query
 *   options dialog move "status" to second place and untick "title"; after a reload the
 *   column is still hidden and the query bar keeps that order without "title"
 * - /addUser form: the page-configuration dialog moves "workNo" from the basic group to
 *   the data-scope group; after saving and reopening the form the field sits there;
 *   the department form modal offers the same button
 */
import type { Page } from 'playwright-core';
import { translate } from '../../locales';
import { startSignedIn, stopSignedIn, type BrowserSession } from '../support/browser';
import type { InProcessPlatform } from '../support/inprocess';
import { chooseIn, settled, TABLE_LOADING } from '../support/schemaPages';

const zh = (key: string, params?: Record<string, unknown>) => translate('zh-CN', key, params);
const userField = (name: string) => zh(`entity.user.field.${name}`);

/** The generic list screen's settings: column popover, query-options dialog, query bar. */
class ListSettingsPage {
  constructor(private readonly page: Page) {}
  async settled() {
    await this.page.getByTestId('schema-table').waitFor();
    await this.page.locator(TABLE_LOADING).waitFor({ state: 'detached' });
  }
  headers() {
    return this.page.locator('.ant-table-thead th');
  }
  async queryLabels(): Promise<string[]> {
    const texts = await this.page.locator('.ant-pro-query-filter .ant-form-item-label label').allTextContents();
    // The buttons' form item has an empty label.
    return texts.map((s) => s.trim()).filter(Boolean);
  }
  /** Ticks or unticks a column in the gear popover; resolves once the server has the setting. */
  async toggleColumn(title: string) {
    const saved = this.page.waitForResponse((r) => r.url().endsWith('/api/ucenter/v1/user/config') && r.request().method() === 'POST');
    await this.page.locator('.ant-pro-table-list-toolbar-setting-item [aria-label="setting"]').click();
    const overlay = this.page.locator('.ant-pro-table-column-setting-overlay');
    await overlay.locator('.ant-tree-treenode').filter({ hasText: title }).locator('.ant-tree-checkbox').click();
    await saved;
    // Close the popover (a click outside).
    await this.page.locator('.ant-pro-table-list-toolbar-title').click();
    await overlay.waitFor({ state: 'hidden' });
  }
}

describe('screen settings in Chromium', () => {
  let server: InProcessPlatform;
  let b: BrowserSession;

  const toast = (text: string) => b.page.locator('.ant-message-notice').filter({ hasText: text }).first();

  beforeAll(async () => {
    ({ server, b } = await startSignedIn('13800000001'));
  }, 180_000);
  afterAll(() => stopSignedIn(server, b));

  test('list: a hidden column and the query options hold after a reload', async () => {
    const { page } = b;
    const list = new ListSettingsPage(page);
    await page.goto(`${server.url}/user`);
    await list.settled();
    const mobile = userField('mobile');
    await list.headers().filter({ hasText: mobile }).first().waitFor();
    expect(await list.queryLabels()).toEqual(['name', 'mobile', 'title', 'status', 'lastLoginAt'].map(userField));

    await list.toggleColumn(mobile);
    await list.headers().filter({ hasText: mobile }).first().waitFor({ state: 'detached' });

    await page.getByTestId('query-options').click();
    const dialog = page.getByTestId('query-options-dialog');
    await dialog.waitFor();
    await settled(page);
    await dialog.getByTestId('query-option-up-status').click();
    await dialog.getByTestId('query-option-up-status').click();
    await dialog.getByTestId('query-option-title').locator('input[type="checkbox"]').uncheck();
    await b.shot('settings-query-options');
    await page.getByTestId('query-options-save').click();
    await toast(zh('entity.settings.saved')).waitFor();
    await dialog.waitFor({ state: 'detached' });
    await list.settled();
    const expected = ['name', 'status', 'mobile', 'lastLoginAt'].map(userField);
    expect(await list.queryLabels()).toEqual(expected);

    await page.reload();
    await list.settled();
    await list
      .headers()
      .filter({ hasText: userField('name') })
      .first()
      .waitFor();
    expect(await list.headers().filter({ hasText: mobile }).count()).toBe(0);
    expect(await list.queryLabels()).toEqual(expected);
    await b.shot('settings-list-after-reload');
  }, 120_000);

  test('form: a field moved to another group in the page configuration stays there', async () => {
    const { page } = b;
    await page.goto(`${server.url}/addUser`);
    const form = page.locator('[data-testid="resource-form"][data-mode="create"]');
    await form.getByTestId('field-workNo').waitFor();
    expect(await form.getByTestId('group-basic').getByTestId('field-workNo').count()).toBe(1);

    await page.getByTestId('page-config').click();
    const dialog = page.getByTestId('page-config-dialog');
    await dialog.waitFor();
    await chooseIn(page, dialog.getByTestId('layout-field-workNo'), zh('entity.group.dataScope'));
    // Now last in the data-scope group; move it above the data-scope editor.
    await dialog.getByTestId('layout-group-dataScope').getByTestId('layout-field-workNo').waitFor();
    await dialog.getByTestId('layout-up-workNo').click();
    await b.shot('settings-page-config');
    await page.getByTestId('page-config-save').click();
    await toast(zh('entity.settings.saved')).waitFor();
    await dialog.waitFor({ state: 'detached' });
    // The open form follows at once …
    await form.getByTestId('group-dataScope').getByTestId('field-workNo').waitFor();

    // … and so does the form opened afresh.
    await page.goto(`${server.url}/user`);
    await page.goto(`${server.url}/addUser`);
    await form.getByTestId('field-workNo').waitFor();
    expect(await form.getByTestId('group-basic').getByTestId('field-workNo').count()).toBe(0);
    const scope = form.getByTestId('group-dataScope');
    expect(await scope.getByTestId('field-workNo').count()).toBe(1);
    // workNo comes before the data-scope editor in its group.
    const order = await scope.locator('[data-testid^="field-"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')));
    expect(order.indexOf('field-workNo')).toBeLessThan(order.indexOf('field-dataScope'));
    await scope.scrollIntoViewIfNeeded();
    await b.shot('settings-form-after-layout');

    // The form modal offers the same button beside its title.
    await page.goto(`${server.url}/departmentList`);
    await page.getByTestId('create').click();
    const modal = page.getByTestId('form-modal');
    await modal.getByTestId('field-code').waitFor();
    await page.locator('.ant-modal-title').getByTestId('page-config').waitFor();
    await b.shot('settings-modal-title');
  }, 120_000);
});
