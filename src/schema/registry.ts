/**
 * The one component registry for schema forms (Formily createSchemaField): the
 * @formily/antd-v5 controls and layouts, and ours (Section, Switch, DateTime,
 * RemoteSelect, PermissionTree, ConditionEditor, ImageUpload, FileUpload, Money, DicomText), each already wrapped
 * once with connect / mapProps / mapReadPretty so every detail view is read-pretty for
 * free. Features add their own controls through their manifest (registerControl,
 * src/features), before the first form renders. A name registered twice
 * throws (amis registerRenderer does the same): two controls under one name would
 * make a view mean whichever loaded last. Also registers the validator rules the
 * generated schemas use beyond Formily's own (uniqueBy).
 */
import { registerValidateRules } from '@formily/core';
import {
  ArrayCards,
  ArrayItems,
  ArrayTable,
  Checkbox,
  DatePicker,
  FormGrid,
  FormItem,
  FormLayout,
  FormStep,
  Input,
  NumberPicker,
  Password,
  Radio,
  Select,
  Space,
  TreeSelect,
} from '@formily/antd-v5';
import { createSchemaField } from '@formily/react';
import type { ComponentType } from 'react';
import { ConditionEditor } from './components/ConditionEditor';
import { DateTime } from './components/DateTime';
import { formScope } from './fillers';
import { ImageUpload } from './components/ImageUpload';
import { FileUpload } from './components/FileUpload';
import { PermissionTree } from './components/PermissionTree';
import { RemoteSelect } from './components/RemoteSelect';
import { Money } from './components/Money';
import { DicomText } from './components/DicomText';
import { Section } from './components/Section';
import { Switch } from './components/Switch';
import { totalScope } from './totals';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type RegisteredComponent = ComponentType<any>;
export type Registry = Readonly<Record<string, RegisteredComponent>>;

/** Merges component maps into one frozen registry; a repeated name throws. */
export function defineRegistry(...maps: Array<Record<string, RegisteredComponent>>): Registry {
  const out: Record<string, RegisteredComponent> = {};
  for (const map of maps) {
    for (const [name, component] of Object.entries(map)) {
      if (Object.prototype.hasOwnProperty.call(out, name)) throw new Error(`schema component "${name}" is registered twice`);
      if (!component) throw new Error(`schema component "${name}" is undefined`);
      out[name] = component;
    }
  }
  return Object.freeze(out);
}

/** From @formily/antd-v5, as they are. Its Switch is replaced by ours (read-pretty yes/no). */
const formilyControls: Record<string, RegisteredComponent> = {
  FormItem,
  FormGrid,
  FormLayout,
  FormStep,
  Input,
  Password,
  NumberPicker,
  Select,
  DatePicker,
  Checkbox,
  Radio,
  TreeSelect,
  Space,
  ArrayItems,
  ArrayTable,
  ArrayCards,
};

const customControls: Record<string, RegisteredComponent> = {
  Section,
  Switch,
  DateTime,
  RemoteSelect,
  PermissionTree,
  ConditionEditor,
  ImageUpload,
  FileUpload,
  Money,
  DicomText,
};

/** The engine's own controls, frozen. */
export const components: Registry = defineRegistry(formilyControls, customControls);

/**
 * What forms render with: the engine's controls and those features registered. Formily
 * reads its components map lazily (lazyMerge), so a control registered after this
 * module loaded still resolves.
 */
const registered: Record<string, RegisteredComponent> = { ...components };

/** Adds a feature's control under `name`; a name the engine or another feature holds throws. */
export function registerControl(name: string, component: RegisteredComponent): void {
  if (Object.prototype.hasOwnProperty.call(registered, name)) throw new Error(`schema component "${name}" is registered twice`);
  if (!component) throw new Error(`schema component "${name}" is undefined`);
  registered[name] = component;
}

/** Does the registry resolve `name`, including members such as "ArrayTable.Column"? */
export function hasComponent(name: string, registry: Registry = registered): boolean {
  const [head, ...rest] = name.split('.');
  let node: unknown = registry[head];
  for (const part of rest) node = node ? (node as Record<string, unknown>)[part] : undefined;
  return typeof node === 'function' || (typeof node === 'object' && node !== null);
}

/** Arrays of objects: no two rows share `rule.uniqueBy` (a view's `uniqueBy`). */
export function duplicateRows(value: unknown, key: string): number[] {
  if (!Array.isArray(value)) return [];
  const seen = new Map<unknown, number>();
  const dup: number[] = [];
  value.forEach((row, i) => {
    const v = row && typeof row === 'object' ? (row as Record<string, unknown>)[key] : undefined;
    if (v === undefined || v === null || v === '') return;
    if (seen.has(v)) dup.push(i);
    else seen.set(v, i);
  });
  return dup;
}

registerValidateRules({
  uniqueBy(value, rule) {
    const key = (rule as { uniqueBy?: string }).uniqueBy;
    return key && duplicateRows(value, key).length ? (rule.message as string) : '';
  },
});

export const SchemaField = createSchemaField({ components: registered, scope: { ...formScope, ...totalScope } });
