/**
 * Page objects for the generic schema screens (src/pages/resource): a form generated
 * from a view and a view's list with its query bar, addressed by field name and the
 * data-testids the renderers set, so a test reads as what a user does.
 */

import type { Locator, Page, Response } from 'playwright-core';

/** The loading mask of a list's table itself, not the spinners inside its cells. */
export const TABLE_LOADING = '.ant-pro-table .ant-table-wrapper > .ant-spin-nested-loading > div > .ant-spin-spinning';

/**
 * No visible dialog or dropdown motion under way, as far as can be told within a few
 * seconds: an element hidden mid-motion can keep its motion class, so this does not
 * insist. The tests turn antd's motion off (tests/support/browser.ts), so this returns
 * at once there; it stays for a page opened without that setting.
 */
export async function settled(page: Page): Promise<void> {
  await page
    .waitForFunction(
      () =>
        ![...document.querySelectorAll('[class*="-appear-active"], [class*="-enter-active"], [class*="-leave-active"]')].some(
          (el) => el.getClientRects().length > 0,
        ),
      undefined,
      { timeout: 3_000 },
    )
    .catch(() => undefined);
}

/**
 * Opens the searchable select inside `scope` (a form item or a query-bar item) and
 * picks the option with this text, typed first to bring it into the virtual list and
 * to wait for remote options. The browser tests run with antd's motion off (reduced
 * motion, tests/support/browser.ts), so no dialog still zooming in takes the focus
 * and closes the dropdown: one pick is enough.
 */
export async function chooseIn(page: Page, scope: Locator, option: string): Promise<void> {
  await scope.locator('.ant-select-selector').click();
  await page.keyboard.type(option);
  await page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: option }).first().click();
  await scope.locator('.ant-select-selection-item').filter({ hasText: option }).waitFor();
  await page.locator('.ant-select-dropdown:visible').waitFor({ state: 'detached' });
}

/** The test id of a row's action: row-detail, row-edit, row-delete, else row-action-<key>. */
function actionTestId(key: string): string {
  return ['detail', 'edit', 'delete'].includes(key) ? `row-${key}` : `row-action-${key}`;
}

/**
 * A row's action by key (detail, edit, delete or a view's row action): its link, or its
 * item under the row's "more" menu, which this opens (the action column shows a row's
 * most used actions as links and the rest there). A confirmation's OK button is
 * `<test id>-ok` either way.
 */
export async function rowAction(row: Locator, key: string): Promise<Locator> {
  await row.getByTestId('row-actions').waitFor();
  const link = row.getByTestId(actionTestId(key));
  if (await link.count()) return link;
  const more = row.getByTestId('row-more');
  if (!(await rowActionKeys(row)).includes(key)) throw new Error(`the row offers no ${key}`);
  const page = row.page();
  const item = page.locator('.ant-dropdown:not(.ant-dropdown-hidden)').getByTestId(actionTestId(key));
  for (let attempt = 1; ; attempt++) {
    await settled(page);
    if (!(await item.isVisible())) await more.click();
    try {
      await item.waitFor({ timeout: 5_000 });
      return item;
    } catch (e) {
      // A click during another popup's closing motion can be lost: open again.
      if (attempt >= 3) throw e;
    }
  }
}

/** A row's action, its link or the "more" trigger that lists it: wait for it to see the row offer the action. */
export function offered(row: Locator, key: string): Locator {
  return row.locator(`[data-testid=${actionTestId(key)}], [data-testid=row-more][data-actions~="${key}"]`).first();
}

/** Clicks a row's action, a link or an item under "more" (see rowAction). */
export async function clickRowAction(row: Locator, key: string): Promise<void> {
  await (await rowAction(row, key)).click();
}

/** The keys of the actions a row offers, its links and those under "more", without opening anything. */
export async function rowActionKeys(row: Locator): Promise<string[]> {
  const cell = row.getByTestId('row-actions');
  await cell.waitFor();
  return cell.evaluate((el) => {
    const keys: string[] = [];
    for (const a of el.querySelectorAll('[data-testid]')) {
      const id = a.getAttribute('data-testid') ?? '';
      if (id === 'row-more') keys.push(...(a.getAttribute('data-actions') ?? '').split(' ').filter(Boolean));
      else if (id.startsWith('row-action-')) keys.push(id.slice('row-action-'.length));
      else if (['row-detail', 'row-edit', 'row-delete'].includes(id)) keys.push(id.slice('row-'.length));
    }
    return keys;
  });
}

/** A form generated from a view (SchemaForm), by field name (data-testid field-<name>). */
export class SchemaFormPage {
  constructor(private readonly page: Page, private readonly root: Locator) {}
  /** Opens a form screen (`/examCreate`) and waits for its form. */
  static async open(page: Page, url: string): Promise<SchemaFormPage> {
    await page.goto(url);
    const root = page.getByTestId('resource-form');
    await root.waitFor();
    return new SchemaFormPage(page, root);
  }
  /** Fills text fields and picks options of choice fields, in the order given. */
  async enter(values: Array<[name: string, kind: 'fill' | 'choose', value: string]>) {
    for (const [name, kind, value] of values) await (kind === 'fill' ? this.fill(name, value) : this.choose(name, value));
  }
  field(name: string): Locator {
    return this.root.getByTestId(`field-${name}`);
  }
  async fill(name: string, value: string) {
    await this.field(name).locator('input').fill(value);
  }
  /** Picks the option with this text in the field's select (see chooseIn). */
  async choose(name: string, option: string, nth = 0) {
    await chooseIn(this.page, this.field(name).nth(nth), option);
  }
}

/** A view's list screen (SchemaTable): query bar, rows, per-row actions. */
export class ResourceListPage {
  constructor(private readonly page: Page, private readonly base: string) {}
  async open(path: string) {
    await this.page.goto(`${this.base}${path}`);
    await this.page.getByTestId('resource-list').waitFor();
    // The table's first answer shown: its loading mask may not be up yet when the screen shows
    // (a table read then counted no rows).
    await this.page.waitForFunction((loading) => Number(document.querySelector('[data-list-loads]')?.getAttribute('data-list-loads')) > 0 && !document.querySelector(loading), TABLE_LOADING);
  }
  /** Waits for the table's loading mask to go (its own: cells such as thumbnails have spinners of their own). */
  async settled() {
    await this.page.locator(TABLE_LOADING).waitFor({ state: 'detached' });
  }
  /** Fills query-bar text fields (by field name) and runs the query. */
  async search(values: Record<string, string>) {
    const bar = this.page.locator('.ant-pro-query-filter');
    for (const [name, value] of Object.entries(values)) await bar.locator(`input#${name}`).fill(value);
    // This query's answer, not that of a reload still under way (after a save, say).
    const listed = this.page.waitForResponse((r) => {
      // A list call: {base}/list, or a sub-list {base}/list/<kind> (view list.kinds).
      if (!/\/list(\/[A-Za-z]+)?$/.test(new URL(r.url()).pathname) || r.request().method() !== 'POST') return false;
      const filters = (r.request().postDataJSON() as { filters?: Record<string, unknown> } | null)?.filters ?? {};
      return Object.entries(values).every(([k, v]) => filters[k] === v);
    });
    // While the table loads, its search button is a loading button, which swallows a
    // click (a reload the page started itself, the column options' refetch): wait it out.
    await this.settled();
    await bar.locator('.ant-btn-primary:not(.ant-btn-loading)').click();
    await this.showing(await listed);
  }
  /**
   * Waits until the table shows the rows of this list answer, in its order: the answer
   * arrives (the response event) before the page has read and rendered it, and the
   * rows of the query before may still be on screen meanwhile.
   */
  async showing(answer: Response) {
    const ids = (((await answer.json()) as { data?: { list?: Array<{ id?: unknown }> } }).data?.list ?? []).map((r) => String(r.id));
    await this.page.waitForFunction(
      (expected) => {
        const rows = [...document.querySelectorAll('.ant-pro-table .ant-table-tbody tr.ant-table-row')].map((tr) => tr.getAttribute('data-row-key'));
        return rows.length === expected.length && rows.every((k, i) => k === expected[i]);
      },
      ids,
    );
    await this.settled();
  }
  /** Export: opens the export dialog and confirms the range it starts with (the list's own, else the last 7 days). */
  async exportList() {
    await this.page.getByTestId('list-export').click();
    await this.page.getByTestId('export-dialog').waitFor();
    await this.page.getByTestId('export-confirm').click();
  }
  rows(): Locator {
    return this.page.locator('.ant-pro-table .ant-table-tbody tr.ant-table-row');
  }
  row(text: string): Locator {
    return this.rows().filter({ hasText: text });
  }
}
