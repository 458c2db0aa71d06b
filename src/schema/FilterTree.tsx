/**
 * The tree beside a view's list (view list.tree): loads the nodes from the view's call
 * (again whenever `reloadKey` changes, e.g. after the list reloaded following a save),
 * and tells the list which node is chosen; ./treeFilters turns it into filters. With
 * the tree's `rename` right a node is renamed in a small dialog, its new name held to
 * the limits of its level's field; the list is then told to reload (its filters named
 * the old name, so the root is chosen). A failed call was shown by the request wrapper.
 */
import { EditOutlined } from '@ant-design/icons';
import { App, Card, Form, Input, Modal, Tree, Typography } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { request, type QueryValue } from '../services/request';
import { textRule } from './inputs';
import { entityModel } from '../shared/schema/model';
import { usePermissionMap } from './permissions';
import { rowActionAllowed } from './rowActions';
import { filterTreeData, nodeNames, renameBody, TREE_ROOT, type TreeNodeIn } from './treeFilters';
import type { TreeSpec, View } from '../shared/schema/types';
import { useBusy } from './useBusy';
import { useTranslate } from './useTranslate';

export interface FilterTreeProps {
  view: View;
  spec: TreeSpec;
  selected: string;
  onSelect(key: string): void;
  reloadKey: number;
  /** After a rename: the list reloads. */
  onRenamed(): void;
}

function RenameDialog({ view, spec, nodeKey, onClose }: { view: View; spec: TreeSpec; nodeKey: string; onClose(renamed: boolean): void }) {
  const { t } = useTranslate();
  const { message } = App.useApp();
  const [form] = Form.useForm<{ name: string }>();
  const names = nodeNames(nodeKey);
  const field = entityModel(view.entity).byName.get(spec.levels[names.length - 1]);
  const limits = { minLength: field?.minLength ?? 1, maxLength: field?.maxLength ?? 255 };
  const label = t('entity.tree.name');
  const [ok, busy] = useBusy(async () => {
    const { name } = await form.validateFields();
    await request(spec.rename!.path, { method: 'POST', body: renameBody(spec, nodeKey, name.trim()) });
    message.success(t('entity.tree.renameDone'));
    onClose(true);
  });
  return (
    <Modal
      open
      title={t('entity.tree.rename')}
      okText={t('common.ok')}
      cancelText={t('common.cancel')}
      okButtonProps={{ loading: busy, 'data-testid': 'filter-tree-rename-ok' }}
      onOk={ok}
      onCancel={() => onClose(false)}
      destroyOnClose
    >
      <Form form={form} layout="vertical" initialValues={{ name: names[names.length - 1] }} preserve={false}>
        <Form.Item name="name" label={label} rules={[textRule(limits, label, t)]}>
          <Input data-testid="filter-tree-rename-name" />
        </Form.Item>
      </Form>
    </Modal>
  );
}

export function FilterTree({ view, spec, selected, onSelect, reloadKey, onRenamed }: FilterTreeProps) {
  const { t } = useTranslate();
  const map = usePermissionMap();
  const [nodes, setNodes] = useState<TreeNodeIn[]>();
  const [renaming, setRenaming] = useState<string>();
  const mayRename = spec.rename !== undefined && rowActionAllowed(view, spec.rename, map);

  useEffect(() => {
    let live = true;
    request<TreeNodeIn[]>(spec.call.path, { query: spec.call.query as Record<string, QueryValue> | undefined }).then(
      (answer) => live && setNodes(Array.isArray(answer) ? answer : []),
      () => live && setNodes([]),
    );
    return () => {
      live = false;
    };
  }, [spec, reloadKey]);

  const data = useMemo(() => filterTreeData(spec, nodes, t('entity.tree.all')), [spec, nodes, t]);

  return (
    <Card size="small" style={{ width: 240, flex: 'none' }} loading={nodes === undefined} data-testid="filter-tree">
      <Tree
        blockNode
        defaultExpandAll
        // A new answer may bring new nodes: expand them too.
        key={JSON.stringify(nodes ?? [])}
        treeData={data}
        selectedKeys={[selected]}
        // Clicking the chosen node again keeps it (antd would unselect it).
        onSelect={(keys) => onSelect(keys.length ? String(keys[0]) : selected)}
        titleRender={(node) => (
          <span data-testid="filter-tree-node" data-key={String(node.key)}>
            {String(node.title)}
            {mayRename && node.key !== TREE_ROOT && (
              <Typography.Link
                style={{ marginLeft: 8 }}
                title={t('entity.tree.rename')}
                onClick={(e) => {
                  // Renaming is not choosing the node.
                  e.stopPropagation();
                  setRenaming(String(node.key));
                }}
                data-testid="filter-tree-rename"
              >
                <EditOutlined />
              </Typography.Link>
            )}
          </span>
        )}
      />
      {renaming !== undefined && (
        <RenameDialog
          view={view}
          spec={spec}
          nodeKey={renaming}
          onClose={(renamed) => {
            setRenaming(undefined);
            if (!renamed) return;
            onSelect(TREE_ROOT);
            onRenamed();
          }}
        />
      )}
    </Card>
  );
}

export default FilterTree;
