/**
 * A view's list: ProTable with columns and query bar from ./toColumns, server-side
 * paging, sorting and filtering through the resource API, and per-row detail / edit /
 * the view's row actions / delete (with confirmation) plus a create button, each shown
 * only when the permission map allows it (a row action may show a read-only list in a
 * dialog, ./RowListDialog, pick a row of another list first, ./PickDialog, ask for a
 * reason or a choice before its call, ./InputDialog, or open a bespoke dialog of
 * ./dialogs, as a toolbar button may, ./ToolbarActionButton, also on the rows ticked in
 * the table). A view with sub-lists (list.kinds) shows one tab per kind the user may
 * see, the chosen one in the address (?kind=); one with a filter tree (list.tree)
 * shows it beside the table (./FilterTree). Opening a form is the caller's (a route or
 * a modal).
 *
 * The user's setting of the view (./useScreenSettings) is read before the table first
 * renders: the column-settings popover is controlled and saved to the server (debounced),
 * and a query-options dialog picks which query fields show and in what order.
 */
import { DownOutlined, FilterOutlined, PlusOutlined } from '@ant-design/icons';
import { ProTable, type ActionType } from '@ant-design/pro-components';
import type { ProFormInstance } from '@ant-design/pro-components';
import { useDebounceFn, useUnmount } from 'ahooks';
import { App, Button, Card, Dropdown, Flex, Popconfirm, Space, Typography } from 'antd';
import { useMemo, useRef, useState, type MutableRefObject } from 'react';
import { useNavigate, useSearchParams } from 'umi';
import { menuKey } from '../i18n/detect';
import { findRoute } from '../routes/table';
import { applyColumnSetting, applyQuerySetting, columnSettingOf, type ColumnsStateMap, type ScreenSetting } from './layout';
import { invalidateOptions, loadOptions } from './options';
import { ownedRights, useActions, usePermissionMap } from './permissions';
import { resourceApi, type Entity } from './resource';
import { actionColumnWidth, rowActionAllowed, rowActionTarget, rowActionTextKey, runRowAction, splitRowActions, visibleRowActions } from './rowActions';
import { hiddenColumns, initialQueryValues, toColumns, toListQuery, type Column, type Row } from './toColumns';
import { QueryOptionsDialog } from './QueryOptionsDialog';
import { RowListDialog } from './RowListDialog';
import { PickDialog } from './PickDialog';
import { InputDialog } from './InputDialog';
import { ToolbarActionButton } from './ToolbarActionButton';
import { FilterTree } from './FilterTree';
import { TREE_ROOT, treeFilters } from './treeFilters';
import { chosenKind, kindTextKey, visibleKinds } from './listKinds';
import type { PathContext } from '../shared/schema/pathTemplate';
import { ActionDialog } from './dialogs';
import { AuthImage } from './components/AuthImage';
import { ProgressCell } from './components/ProgressCell';
import { excelButtons } from './components/ExcelImport';
import { exportButtons } from './components/ExportJob';
import type { RowAction, Translate, View } from '../shared/schema/types';
import { useLatestList } from './useLatestList';
import { useUserScreenSetting } from './useScreenSettings';
import { useTranslate } from './useTranslate';
import { viewName, type FormMode } from '../shared/schema/views';

export interface SchemaTableProps {
  view: View;
  onOpen: (mode: FormMode, row?: Entity) => void;
  actionRef?: MutableRefObject<ActionType | undefined>;
}

/** What a delete confirmation calls the row. */
function rowName(row: Row): string {
  const v = row.name ?? row.label ?? row.code ?? row.id;
  return v === undefined || v === null ? '' : String(v);
}

/** Does the action open a dialog of its own (an input, a pick, a bespoke dialog or a list)? */
const opensDialog = (a: RowAction) => Boolean(a.input || a.pick || a.dialog || a.list);

/** The dialog an action opens for the row; closed, it calls `onDone` (a reload) when something changed. */
function RowActionDialog({ view, action, row, onClose: closed, onDone }: { view: View; action: RowAction; row: Row; onClose: () => void; onDone: () => void }) {
  const { input, pick, dialog, list } = action;
  const onClose = (changed: boolean) => {
    closed();
    if (changed) onDone();
  };
  if (input) return <InputDialog view={view} action={{ ...action, input }} row={row} onClose={onClose} />;
  if (pick) return <PickDialog view={view} action={{ ...action, pick }} row={row} onClose={onClose} />;
  if (dialog) return <ActionDialog view={view} actionKey={action.key} spec={dialog} row={row} onClose={onClose} />;
  if (list) return <RowListDialog view={view} action={{ ...action, list }} row={row} onClose={() => onClose(false)} />;
  return null;
}

/** Makes a row action's call for the row, says it is done and reloads; the request wrapper has told the user of a refusal. */
function useRowCall(view: View, row: Row, t: Translate, onDone: () => void) {
  const { message } = App.useApp();
  const [busy, setBusy] = useState(false);
  const run = async (action: RowAction) => {
    if (busy) return;
    setBusy(true);
    try {
      await runRowAction(action, row);
      message.success(t(rowActionTextKey(view, action, 'Done'), { name: rowName(row) }));
      onDone();
    } catch {
      // Already shown by the request wrapper.
    } finally {
      setBusy(false);
    }
  };
  return { busy, run };
}

interface RowActionProps {
  view: View;
  action: RowAction;
  row: Row;
  t: Translate;
  /** The screen's values a path may name ({$kind}). */
  context: PathContext;
  onDone: () => void;
}

/**
 * One of the view's row actions on one row, as a link: opens its screen or its dialog
 * (an input, a pick, a bespoke dialog, a list), or calls and reloads, asking first
 * when the view says so.
 */
function RowActionLink({ view, action, row, t, context, onDone }: RowActionProps) {
  const navigate = useNavigate();
  const { busy, run } = useRowCall(view, row, t, onDone);
  const [open, setOpen] = useState(false);
  const testId = `row-action-${action.key}`;
  const target = rowActionTarget(action, row, context);
  const act = () => (opensDialog(action) ? setOpen(true) : target ? navigate(target) : run(action));
  const link = (
    <Typography.Link onClick={action.confirm ? undefined : () => void act()} disabled={busy} data-testid={testId}>
      {t(rowActionTextKey(view, action))}
    </Typography.Link>
  );
  return (
    <>
      {action.confirm ? (
        <Popconfirm
          title={t(rowActionTextKey(view, action, 'Confirm'), { name: rowName(row) })}
          okText={t('common.ok')}
          cancelText={t('common.cancel')}
          okButtonProps={{ loading: busy, 'data-testid': `${testId}-ok` }}
          onConfirm={act}
        >
          {link}
        </Popconfirm>
      ) : (
        link
      )}
      {open && <RowActionDialog view={view} action={action} row={row} onClose={() => setOpen(false)} onDone={onDone} />}
    </>
  );
}

/** An action of the column other than the view's row actions (detail, edit, delete), as the "more" menu needs it. */
interface GenericEntry {
  key: string;
  label: string;
  testId: string;
  danger?: boolean;
  /** The question asked first, if any. */
  confirm?: string;
  perform: () => unknown;
}

/**
 * The row's actions that did not fit as links, under "more": the same actions as the
 * links (a confirmation is asked in a dialog, as a menu item has no place to anchor a
 * popover; its OK button has the link's `-ok` test id). The trigger lists their keys
 * (data-actions, space-separated), so what a row offers can be read without opening it.
 */
function MoreActions({ view, actions, generic, row, t, context, onDone }: Omit<RowActionProps, 'action'> & { actions: RowAction[]; generic: GenericEntry[] }) {
  const { modal } = App.useApp();
  const navigate = useNavigate();
  const { run } = useRowCall(view, row, t, onDone);
  const [open, setOpen] = useState<RowAction>();
  const confirm = (title: string, testId: string, onOk: () => unknown, danger?: boolean) =>
    modal.confirm({
      title,
      okText: t('common.ok'),
      cancelText: t('common.cancel'),
      okButtonProps: { danger, 'data-testid': `${testId}-ok` } as never,
      onOk: async () => {
        await onOk();
      },
    });
  const perform = (action: RowAction) => {
    const target = rowActionTarget(action, row, context);
    const act = () => (opensDialog(action) ? setOpen(action) : target ? navigate(target) : run(action));
    if (action.confirm) confirm(t(rowActionTextKey(view, action, 'Confirm'), { name: rowName(row) }), `row-action-${action.key}`, act);
    else void act();
  };
  const entries: GenericEntry[] = [
    ...actions.map((a) => ({ key: a.key, label: t(rowActionTextKey(view, a)), testId: `row-action-${a.key}`, perform: () => perform(a) })),
    ...generic,
  ];
  const byKey = new Map(entries.map((e) => [e.key, e]));
  return (
    <>
      <Dropdown
        trigger={['click']}
        menu={{
          items: entries.map((e) => ({ key: e.key, danger: e.danger, label: <span data-testid={e.testId}>{e.label}</span> })),
          onClick: ({ key }) => {
            const e = byKey.get(key);
            if (!e) return;
            if (e.confirm) confirm(e.confirm, e.testId, e.perform, e.danger);
            else void e.perform();
          },
        }}
      >
        <Typography.Link data-testid="row-more" data-actions={entries.map((e) => e.key).join(' ')}>
          {t('entity.action.more')} <DownOutlined style={{ fontSize: 10 }} />
        </Typography.Link>
      </Dropdown>
      {open && <RowActionDialog view={view} action={open} row={row} onClose={() => setOpen(undefined)} onDone={onDone} />}
    </>
  );
}

/** Column settings reach the server this long after the last change in the popover. */
const SAVE_COLUMNS_AFTER_MS = 500;

interface SettledTableProps extends SchemaTableProps {
  setting: ScreenSetting | null;
  save: (patch: ScreenSetting) => Promise<unknown>;
}

export function SchemaTable(props: SchemaTableProps) {
  const { loaded, setting, save } = useUserScreenSetting(viewName(props.view));
  // Rendered only once the setting is known, so a hidden column never flashes in.
  if (!loaded) return <Card loading data-testid="schema-table-loading" />;
  return <SettledTable {...props} setting={setting} save={save} />;
}

function SettledTable({ view, onOpen, actionRef: outerRef, setting, save }: SettledTableProps) {
  const { t, language } = useTranslate();
  const { message } = App.useApp();
  const rights = useActions(view);
  // The server's word on ownership, from the last list answer (see ownedRights).
  const [listReadOnly, setListReadOnly] = useState(false);
  const can = useMemo(() => ownedRights(rights, listReadOnly), [rights, listReadOnly]);
  const permissionMap = usePermissionMap();
  const innerRef = useRef<ActionType>();
  const actionRef = outerRef ?? innerRef;
  const api = useMemo(() => resourceApi(view.resource), [view.resource]);
  const listRoute = findRoute(view.routes.list);
  const [queryDialog, setQueryDialog] = useState(false);
  const toolbarActions = (view.toolbarActions ?? []).filter((a) => rowActionAllowed(view, a, permissionMap));
  // Sub-lists: the kind in the address when the user may see it, else the first one they may.
  const [searchParams, setSearchParams] = useSearchParams();
  const kinds = useMemo(() => visibleKinds(view, permissionMap), [view, permissionMap]);
  const kind = chosenKind(view, permissionMap, searchParams.get('kind'));
  const context = useMemo<PathContext>(() => ({ kind }), [kind]);
  // Rows ticked for the toolbar's actions on the selection.
  const selecting = toolbarActions.some((a) => a.selection);
  const [selected, setSelected] = useState<Row[]>([]);
  // The filter tree's chosen node, and a counter that has it (and toolbar badges) reload after the list did.
  const tree = view.list.tree;
  const [treeKey, setTreeKey] = useState(TREE_ROOT);
  const [listLoads, setListLoads] = useState(0);
  // The query bar as the user set it; columns, actions and permissions stay the view's.
  const queryView = useMemo(() => applyQuerySetting(view, setting?.query), [view, setting?.query]);
  // Preset query values (a required time range opens on its quick range, a drill-through's
  // filters from the address), taken once when the list opens.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const initialQuery = useMemo(() => initialQueryValues(queryView, new Date(), searchParams), [queryView]);

  const columns = useMemo<Column[]>(() => {
    const cols = toColumns(queryView, {
      t,
      locale: language,
      loadOptions: (source) => loadOptions(source, t),
      renderImage: (path, alt) => <AuthImage path={path} alt={alt} />,
      renderProgress: (cell) => <ProgressCell {...cell} />,
    });
    const extra = (view.rowActions ?? []).filter((a) => rowActionAllowed(view, a, permissionMap));
    if (!can.view && !can.edit && !can.remove && !extra.length) return cols;
    const menu = view.list.actionMenu;
    const allowed = Number(can.view) + Number(can.edit) + Number(can.remove) + extra.length;
    const reload = () => actionRef.current?.reload();
    const remove = async (row: Row) => {
      await api.remove(row.id as number);
      invalidateOptions(view.resource);
      message.success(t('entity.action.deleted'));
      reload();
    };
    cols.push({
      title: t('entity.action.operation'),
      key: '__actions',
      valueType: 'option',
      fixed: 'right',
      width: actionColumnWidth(allowed, menu),
      render: (_dom, row) => {
        const actions = new Map(visibleRowActions(view, row, permissionMap, context).map((a) => [a.key, a]));
        // A row the caller may not change (a region-owned role seen from a hospital) offers no edit or delete.
        const own = ownedRights(can, false, row, view.list.removeWhen);
        const keys = [...(can.view ? ['detail'] : []), ...(own.edit ? ['edit'] : []), ...actions.keys(), ...(own.remove ? ['delete'] : [])];
        const { inline, more } = splitRowActions(keys, menu);
        const link = (key: string) => {
          const action = actions.get(key);
          if (action) return <RowActionLink key={key} view={view} action={action} row={row} t={t} context={context} onDone={reload} />;
          if (key === 'delete')
            return (
              <Popconfirm
                key={key}
                title={t('entity.action.deleteConfirm', { name: rowName(row) })}
                okText={t('common.ok')}
                cancelText={t('common.cancel')}
                okButtonProps={{ danger: true, 'data-testid': 'row-delete-ok' }}
                onConfirm={() => remove(row)}
              >
                <Typography.Link type="danger" data-testid="row-delete">
                  {t('entity.action.delete')}
                </Typography.Link>
              </Popconfirm>
            );
          const mode = key === 'edit' ? 'edit' : 'detail';
          return (
            <Typography.Link key={key} onClick={() => onOpen(mode, row as Entity)} data-testid={`row-${mode}`}>
              {t(`entity.action.${mode}`)}
            </Typography.Link>
          );
        };
        const generic = more
          .filter((key) => !actions.has(key))
          .map<GenericEntry>((key) =>
            key === 'delete'
              ? { key, label: t('entity.action.delete'), testId: 'row-delete', danger: true, confirm: t('entity.action.deleteConfirm', { name: rowName(row) }), perform: () => remove(row) }
              : { key, label: t(key === 'edit' ? 'entity.action.edit' : 'entity.action.detail'), testId: `row-${key}`, perform: () => onOpen(key === 'edit' ? 'edit' : 'detail', row as Entity) },
          );
        return (
          // wrap: a longer translation takes a second line instead of running out of the column.
          <Space size={4} wrap data-testid="row-actions">
            {inline.map(link)}
            {more.length > 0 && (
              <MoreActions
                view={view}
                actions={more.flatMap((key) => actions.get(key) ?? [])}
                generic={generic}
                row={row}
                t={t}
                context={context}
                onDone={reload}
              />
            )}
          </Space>
        );
      },
    });
    return cols;
  }, [view, queryView, t, language, can.view, can.edit, can.remove, permissionMap, api, onOpen, message, actionRef, context]);

  const hidden = useMemo(() => hiddenColumns(view), [view]);
  // The popover's reset goes back to the view's defaults, not to the stored setting.
  const defaultColumnsState = useMemo(() => applyColumnSetting(columns, undefined, hidden), [columns, hidden]);
  const [columnsState, setColumnsState] = useState<ColumnsStateMap>(() => applyColumnSetting(columns, setting?.columns, hidden));
  const { run: saveColumns, flush: flushColumns } = useDebounceFn(
    (map: ColumnsStateMap) => {
      // A refused save was shown by the request wrapper; the screen keeps the choice.
      save({ columns: columnSettingOf(map, columns) }).catch(() => undefined);
    },
    { wait: SAVE_COLUMNS_AFTER_MS },
  );
  // Leaving the screen right after a change still stores it.
  useUnmount(flushColumns);

  const queryKey = (queryView.list.query ?? []).join(',');
  const lastFilters = useRef<Record<string, unknown>>({});
  const latestList = useLatestList<Row>();

  const formRef = useRef<ProFormInstance>();
  // A toolbar filter: its values into the query bar (a select's options are keyed by the values as they are), then the query runs.
  const applyFilter = (values: Record<string, string | number | boolean>) => {
    formRef.current?.setFieldsValue(values);
    formRef.current?.submit();
  };

  const reloadAfterAction = () => {
    setSelected([]);
    actionRef.current?.clearSelected?.();
    actionRef.current?.reload();
  };

  const table = (
    <ProTable<Row>
      // A new query bar (other fields or order) is a new search form: remount.
      key={`${language}:${queryKey}`}
      rowKey="id"
      data-testid="schema-table"
      actionRef={actionRef}
      formRef={formRef}
      columns={columns}
      headerTitle={listRoute ? t(menuKey(listRoute.name)) : undefined}
      // The kind and the tree's node are the list's too: a change asks again (from page 1).
      params={{ $kind: kind, $tree: treeKey }}
      request={(params, sort) =>
        // A reload still under way (after a save) must not overwrite the query just asked.
        latestList(async (signal) => {
          const query = toListQuery(queryView, params, sort);
          // The tree's node narrows the query bar's filters; the view's fixed ones still win.
          if (tree)
            query.filters = {
              ...query.filters,
              ...treeFilters(tree, params.$tree as string | undefined),
              ...view.fixedFilters,
            };
          // What the list shows is what Excel export and import work on.
          lastFilters.current = query.filters;
          // A view of sub-lists none of which the user may see has nothing to ask for.
          const listKind = params.$kind as string | undefined;
          if (view.list.kinds && !listKind) return { data: [], total: 0, success: true };
          const reply = await api.list(query, signal, listKind);
          // The filter tree and the toolbar's badges ask again after the list did.
          if (!signal.aborted) setListLoads((n) => n + 1);
          if (!signal.aborted) setListReadOnly(reply?.readOnly === true);
          return { data: reply?.list ?? [], total: reply?.total ?? 0, success: true };
        })
      }
      search={{
        labelWidth: 'auto',
        defaultCollapsed: false,
        span: { xs: 24, sm: 12, md: 8, lg: 8, xl: 6, xxl: 6 },
      }}
      form={{ syncToUrl: false, initialValues: initialQuery }}
      pagination={{
        defaultPageSize: 20,
        showSizeChanger: true,
        pageSizeOptions: [10, 20, 50, 100],
      }}
      columnsState={{
        value: columnsState,
        defaultValue: defaultColumnsState,
        onChange: (map) => {
          setColumnsState(map as ColumnsStateMap);
          saveColumns(map as ColumnsStateMap);
        },
      }}
      options={{ density: false, reload: true, setting: true }}
      scroll={{ x: 'max-content' }}
      rowSelection={
        selecting
          ? {
              selectedRowKeys: selected.map((r) => r.id as number),
              onChange: (_keys, rows) => setSelected(rows.filter(Boolean)),
            }
          : undefined
      }
      toolbar={
        kinds.length > 1
          ? {
              menu: {
                type: 'tab',
                activeKey: kind,
                items: kinds.map((k) => ({
                  key: k.key,
                  label: <span data-testid={`list-kind-${k.key}`}>{t(kindTextKey(view, k.key))}</span>,
                })),
                onChange: (key) => {
                  setSelected([]);
                  const next = new URLSearchParams(searchParams);
                  next.set('kind', String(key));
                  setSearchParams(next, { replace: true });
                },
              },
            }
          : undefined
      }
      toolBarRender={() => [
        ...excelButtons({
          view,
          readOnly: listReadOnly,
          filters: () => lastFilters.current,
          onImported: () => actionRef.current?.reload(),
        }),
        ...exportButtons({ view, filters: () => lastFilters.current }),
        ...toolbarActions.map((a) => (
          <ToolbarActionButton key={`toolbar-${a.key}`} view={view} action={a} rows={selected} onDone={reloadAfterAction} onFilter={applyFilter} listLoads={listLoads} />
        )),
        ...(view.list.query?.length
          ? [
              <Button key="queryOptions" icon={<FilterOutlined />} onClick={() => setQueryDialog(true)} data-testid="query-options">
                {t('entity.settings.queryOptions')}
              </Button>,
            ]
          : []),
        ...(can.add
          ? [
              <Button key="create" type="primary" icon={<PlusOutlined />} onClick={() => onOpen('create')} data-testid="create">
                {t('entity.action.create')}
              </Button>,
            ]
          : []),
      ]}
    />
  );

  return (
    // How many answers the list has shown (data-list-loads): a page object waits for the first, as
    // the table's loading mask may not be up yet when the screen first shows.
    <div data-list-loads={listLoads} style={{ display: 'contents' }}>
      {tree ? (
        <Flex gap={16} align="start">
          <FilterTree view={view} spec={tree} selected={treeKey} onSelect={setTreeKey} reloadKey={listLoads} onRenamed={() => actionRef.current?.reload()} />
          <div style={{ flex: 1, minWidth: 0 }}>{table}</div>
        </Flex>
      ) : (
        table
      )}
      {queryDialog && (
        <QueryOptionsDialog
          view={view}
          setting={setting?.query}
          onClose={() => setQueryDialog(false)}
          onSave={async (rows) => {
            await save({ query: rows });
            message.success(t('entity.settings.saved'));
            setQueryDialog(false);
          }}
        />
      )}
    </div>
  );
}

export default SchemaTable;
