/**
 * The dialog registry: bespoke dialogs a view opens by name from a row action or a
 * toolbar button (view `dialog`: an exam's images, the DICOM upload), each loaded on
 * first use. Features register theirs through their manifest (src/features): the
 * engine names none. A name registered twice throws, as the form registry does. ActionDialog
 * is the host: it gives the dialog its row (or the list's ticked rows), props and
 * title, and the follow-up call the view names with `then` when the user holds its right.
 */
import { App } from 'antd';
import { lazy, Suspense, useMemo, type ComponentType, type LazyExoticComponent } from 'react';
import { usePermissionMap } from './permissions';
import { rowActionAllowed, rowActionTextKey, runRowAction } from './rowActions';
import type { DialogSpec, View } from '../shared/schema/types';
import { useTranslate } from './useTranslate';

/** What every registered dialog is given. */
export interface ActionDialogProps {
  /** The row it was opened for; absent when opened from the toolbar. */
  row?: Record<string, unknown>;
  /** The rows ticked in the list, when a toolbar action with `selection` opened it (at least one). */
  rows?: Record<string, unknown>[];
  /** The action's text (entity.<entity>.action.<key>). */
  title: string;
  /** The view's `props` for it. */
  props: Record<string, unknown>;
  /** Closes the dialog; `changed` reloads the list under it. */
  onClose(changed: boolean): void;
  /** The view's `then` action for the row, when the user may run it: resolves true once it succeeded (and said so). */
  followUp?: { label: string; run(): Promise<boolean> };
}

export type DialogLoader = () => Promise<{ default: ComponentType<ActionDialogProps> }>;

const loaders = new Map<string, DialogLoader>();
const loaded = new Map<string, LazyExoticComponent<ComponentType<ActionDialogProps>>>();

export function registerDialog(name: string, loader: DialogLoader): void {
  if (loaders.has(name)) throw new Error(`dialog ${name} registered twice`);
  loaders.set(name, loader);
}

export function dialogNames(): string[] {
  return [...loaders.keys()];
}

/** A registered dialog's component, loaded on first render (a page may host one itself: the report detail's print preview). */
export function dialogComponent(name: string): LazyExoticComponent<ComponentType<ActionDialogProps>> {
  const loader = loaders.get(name);
  if (!loader) throw new Error(`no dialog ${name} in the registry`);
  let component = loaded.get(name);
  if (!component) {
    component = lazy(loader);
    loaded.set(name, component);
  }
  return component;
}

export interface ActionDialogHostProps {
  view: View;
  /** The row action's or toolbar button's key (its title text). */
  actionKey: string;
  spec: DialogSpec;
  row?: Record<string, unknown>;
  rows?: Record<string, unknown>[];
  onClose(changed: boolean): void;
}

export function ActionDialog({ view, actionKey, spec, row, rows, onClose }: ActionDialogHostProps) {
  const { t } = useTranslate();
  const { message } = App.useApp();
  const map = usePermissionMap();
  const Dialog = dialogComponent(spec.component);
  const followUp = useMemo(() => {
    const then = spec.then ? view.rowActions?.find((a) => a.key === spec.then) : undefined;
    // The row as listed may be stale by now (images just arrived): only the right is checked.
    if (!then || !row || !rowActionAllowed(view, then, map)) return undefined;
    return {
      label: t(rowActionTextKey(view, then)),
      async run() {
        try {
          await runRowAction(then, row);
          message.success(t(rowActionTextKey(view, then, 'Done')));
          return true;
        } catch {
          // The request wrapper has already told the user.
          return false;
        }
      },
    };
  }, [spec.then, view, row, map, t, message]);
  return (
    <Suspense fallback={null}>
      <Dialog row={row} rows={rows} title={t(rowActionTextKey(view, { key: actionKey }))} props={spec.props ?? {}} onClose={onClose} followUp={followUp} />
    </Suspense>
  );
}
