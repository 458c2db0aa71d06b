/**
 * A view's list: ProTable with columns and query bar from ./toColumns, server-side
 * paging, sorting and filtering through the resource API, and per-row detail / edit /
 * the view's row actions / delete (with confirmation) plus a create button, each shown
 * only when the permission map allows it (a row action may show a read-only list in a
 * dialog, ./RowListDialog, pick a row of another list first, ./PickDialog, or open a
 * bespoke dialog of ./dialogs, as a toolbar button may). Opening a form is the
 * caller's (a route or a modal).
 *
 * The user's setting of the view (./useScreenSettings) is read before the table first
 * renders: the column-settings popover is controlled and saved to the server (debounced),
 * and a query-options dialog picks which query fields show and in what order.
 */
import { FilterOutlined, PlusOutlined } from '@ant-design/icons';
import { ProTable, type ActionType } from '@ant-design/pro-components';
import { useDebounceFn, useUnmount } from 'ahooks';
import { App, Button, Card, Popconfirm, Space, Typography } from 'antd';
import { useMemo, useRef, useState, type MutableRefObject } from 'react';
import { useNavigate } from 'umi';
import { menuKey } from '../i18n/detect';
import { findRoute } from '../routes/table';
import { applyColumnSetting, applyQuerySetting, columnSettingOf, type ColumnsStateMap, type ScreenSetting } from './layout';
import { invalidateOptions, loadOptions } from './options';
import { useActions, usePermissionMap } from './permissions';
import { resourceApi, type Entity } from './resource';
import { rowActionAllowed, rowActionTarget, rowActionTextKey, runRowAction, visibleRowActions } from './rowActions';
import { hiddenColumns, toColumns, toListQuery, type Column, type Row } from './toColumns';
import { QueryOptionsDialog } from './QueryOptionsDialog';
import { RowListDialog } from './RowListDialog';
import { PickDialog } from './PickDialog';
import { ActionDialog } from './dialogs';
import { AuthImage } from './components/AuthImage';
import { excelButtons } from './components/ExcelImport';
import { exportButtons } from './components/ExportJob';
import type { RowAction, Translate, View } from './types';
import { useUserScreenSetting } from './useScreenSettings';
import { useTranslate } from './useTranslate';
import { viewName, type FormMode } from './views';

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

/**
 * One of the view's row actions on one row: opens its screen, shows its list, its
 * pick or its bespoke dialog, or asks first when the view says so, then calls and
 * reloads.
 */
function RowActionLink({ view, action, row, t, onDone }: { view: View; action: RowAction; row: Row; t: Translate; onDone: () => void }) {
  const { message } = App.useApp();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const [listing, setListing] = useState(false);
  const closeDialog = (changed: boolean) => {
    setListing(false);
    if (changed) onDone();
  };
  const run = async () => {
    if (busy) return;
    setBusy(true);
    try {
      await runRowAction(action, row);
      message.success(t(rowActionTextKey(view, action, 'Done'), { name: rowName(row) }));
      onDone();
    } catch {
      // The request wrapper has already told the user.
    } finally {
      setBusy(false);
    }
  };
  const testId = `row-action-${action.key}`;
  const label = t(rowActionTextKey(view, action));
  const target = rowActionTarget(action, row);
  const { list, pick, dialog } = action;
  if (pick || dialog)
    return (
      <>
        <Typography.Link onClick={() => setListing(true)} data-testid={testId}>
          {label}
        </Typography.Link>
        {listing && pick && <PickDialog view={view} action={{ ...action, pick }} row={row} onClose={closeDialog} />}
        {listing && dialog && <ActionDialog view={view} actionKey={action.key} spec={dialog} row={row} onClose={closeDialog} />}
      </>
    );
  if (list)
    return (
      <>
        <Typography.Link onClick={() => setListing(true)} data-testid={testId}>
          {label}
        </Typography.Link>
        {listing && <RowListDialog view={view} action={{ ...action, list }} row={row} onClose={() => setListing(false)} />}
      </>
    );
  if (target)
    return (
      <Typography.Link onClick={() => navigate(target)} data-testid={testId}>
        {label}
      </Typography.Link>
    );
  if (!action.confirm)
    return (
      <Typography.Link onClick={run} disabled={busy} data-testid={testId}>
        {label}
      </Typography.Link>
    );
  return (
    <Popconfirm
      title={t(rowActionTextKey(view, action, 'Confirm'), { name: rowName(row) })}
      okText={t('common.ok')}
      cancelText={t('common.cancel')}
      okButtonProps={{ loading: busy, 'data-testid': `${testId}-ok` }}
      onConfirm={run}
    >
      <Typography.Link disabled={busy} data-testid={testId}>
        {label}
      </Typography.Link>
    </Popconfirm>
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
  const can = useActions(view);
  const permissionMap = usePermissionMap();
  const innerRef = useRef<ActionType>();
  const actionRef = outerRef ?? innerRef;
  const api = useMemo(() => resourceApi(view.resource), [view.resource]);
  const listRoute = findRoute(view.routes.list);
  const [queryDialog, setQueryDialog] = useState(false);
  const [toolbarDialog, setToolbarDialog] = useState<string>();
  const toolbarActions = (view.toolbarActions ?? []).filter((a) => rowActionAllowed(view, a, permissionMap));
  // The query bar as the user set it; columns, actions and permissions stay the view's.
  const queryView = useMemo(() => applyQuerySetting(view, setting?.query), [view, setting?.query]);

  const columns = useMemo<Column[]>(() => {
    const cols = toColumns(queryView, {
      t,
      locale: language,
      loadOptions: (source) => loadOptions(source, t),
      renderImage: (path, alt) => <AuthImage path={path} alt={alt} />,
    });
    const extra = (view.rowActions ?? []).filter((a) => rowActionAllowed(view, a, permissionMap));
    if (!can.view && !can.edit && !can.remove && !extra.length) return cols;
    cols.push({
      title: t('entity.action.operation'),
      key: '__actions',
      valueType: 'option',
      fixed: 'right',
      width: 170 + 40 * extra.length,
      render: (_dom, row) => (
        // wrap: a longer translation takes a second line instead of running out of the column.
        <Space size={4} wrap data-testid="row-actions">
          {can.view && (
            <Typography.Link onClick={() => onOpen('detail', row as Entity)} data-testid="row-detail">
              {t('entity.action.detail')}
            </Typography.Link>
          )}
          {can.edit && (
            <Typography.Link onClick={() => onOpen('edit', row as Entity)} data-testid="row-edit">
              {t('entity.action.edit')}
            </Typography.Link>
          )}
          {visibleRowActions(view, row, permissionMap).map((action) => (
            <RowActionLink key={action.key} view={view} action={action} row={row} t={t} onDone={() => actionRef.current?.reload()} />
          ))}
          {can.remove && (
            <Popconfirm
              title={t('entity.action.deleteConfirm', { name: rowName(row) })}
              okText={t('common.ok')}
              cancelText={t('common.cancel')}
              okButtonProps={{ danger: true, 'data-testid': 'row-delete-ok' }}
              onConfirm={async () => {
                await api.remove(row.id as number);
                invalidateOptions(view.resource);
                message.success(t('entity.action.deleted'));
                actionRef.current?.reload();
              }}
            >
              <Typography.Link type="danger" data-testid="row-delete">
                {t('entity.action.delete')}
              </Typography.Link>
            </Popconfirm>
          )}
        </Space>
      ),
    });
    return cols;
  }, [view, queryView, t, language, can.view, can.edit, can.remove, permissionMap, api, onOpen, message, actionRef]);

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
  const inflight = useRef<AbortController>();

  return (
    <>
      <ProTable<Row>
        // A new query bar (other fields or order) is a new search form: remount.
        key={`${language}:${queryKey}`}
        rowKey="id"
        data-testid="schema-table"
        actionRef={actionRef}
        columns={columns}
        headerTitle={listRoute ? t(menuKey(listRoute.name)) : undefined}
        request={async (params, sort) => {
          // ProTable shows whichever answer comes last: a reload still under way (after a
          // save) must not overwrite the query just asked, so the older call is abandoned.
          inflight.current?.abort();
          const controller = new AbortController();
          inflight.current = controller;
          try {
            const query = toListQuery(queryView, params, sort);
            // What the list shows is what Excel export and import work on.
            lastFilters.current = query.filters;
            const reply = await api.list(query, controller.signal);
            // success false: ProTable keeps what it shows (an abandoned call, or a refusal).
            if (controller.signal.aborted) return { data: [], total: 0, success: false };
            return { data: reply?.list ?? [], total: reply?.total ?? 0, success: true };
          } catch {
            // The request wrapper has already told the user (and says nothing of an abandoned call).
            return { data: [], total: 0, success: false };
          }
        }}
        search={{ labelWidth: 'auto', defaultCollapsed: false, span: { xs: 24, sm: 12, md: 8, lg: 8, xl: 6, xxl: 6 } }}
        form={{ syncToUrl: false }}
        pagination={{ defaultPageSize: 20, showSizeChanger: true, pageSizeOptions: [10, 20, 50, 100] }}
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
        toolBarRender={() => [
          ...excelButtons({ view, filters: () => lastFilters.current, onImported: () => actionRef.current?.reload() }),
          ...exportButtons({ view, filters: () => lastFilters.current }),
          ...toolbarActions.map((a) => (
            <Button key={`toolbar-${a.key}`} onClick={() => setToolbarDialog(a.key)} data-testid={`toolbar-action-${a.key}`}>
              {t(rowActionTextKey(view, a))}
            </Button>
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
      {toolbarActions
        .filter((a) => a.key === toolbarDialog)
        .map((a) => (
          <ActionDialog
            key={a.key}
            view={view}
            actionKey={a.key}
            spec={a.dialog}
            onClose={(changed) => {
              setToolbarDialog(undefined);
              if (changed) actionRef.current?.reload();
            }}
          />
        ))}
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
    </>
  );
}

export default SchemaTable;
