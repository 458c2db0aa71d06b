/**
 * Shapes the schema engine reads: the subset of JSON Schema (draft-07) our entity files
 * use, and a view (schemas/views/_view.schema.json; every view is validated against it
 * in tests/unit/schemaViews.test.ts, so this interface only mirrors it for the compiler).
 */
import type { QuickRange } from '../dateRanges';
export type Scalar = string | number | boolean;

export interface JsonSchema {
  $schema?: string;
  $id?: string;
  $ref?: string;
  $comment?: string;
  title?: string;
  description?: string;
  type?: string | string[];
  enum?: Array<Scalar | null>;
  const?: Scalar | null;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  multipleOf?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  readOnly?: boolean;
  writeOnly?: boolean;
  default?: unknown;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  required?: string[];
  items?: JsonSchema;
  allOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  not?: JsonSchema;
  if?: JsonSchema;
  then?: JsonSchema;
  else?: JsonSchema;
  definitions?: Record<string, JsonSchema>;
}

export type OptionSource =
  | { code: string }
  /** A data dictionary's enabled items, by the dictionary's code. */
  | { dictionary: string }
  /** dependsOn: option parameter → the field whose value it takes: a sibling by name, the form's top-level field with a leading "/". */
  | { resource: string; params?: Record<string, Scalar>; dependsOn?: Record<string, string> };

/**
 * Values the form works out for other fields from this one (view hint `fill`): when
 * this field changes, the filler `with` (src/schema/fillers.ts) gives one value per
 * field of `into`, set while the first of them is empty or still holds what was filled.
 */
export interface FillSpec {
  with: string;
  into: string[];
}

export interface ProgressHint {
  done: string;
  total: string;
  error?: string;
  /** State value → the bar's look; a state not named shows its label only. */
  status: Record<string, 'active' | 'success' | 'exception'>;
}

export interface FieldHint {
  component?: string;
  /** Extra props for the component (JSON values only). */
  props?: Record<string, unknown>;
  /** Not a field of the entity: a form control (with `component`) whose value is never saved. */
  virtual?: boolean;
  options?: OptionSource;
  readPrettyOnly?: boolean;
  hideInList?: boolean;
  visibleWhen?: Record<string, Scalar>;
  uniqueBy?: string;
  span?: number;
  /** A list column shows this row field's text after the value (an age and its unit). */
  suffixField?: string;
  fill?: FillSpec;
  /** An amount in CNY: a money column, and two decimals with the currency in the form. */
  money?: boolean;
  /** A list column: the state with a progress bar of the row's `done` of `total` (a regional send). */
  progress?: ProgressHint;
  /** A code-table list column: code value → the badge its cell shows the text with (a report near or over its limit). */
  tone?: Record<string, 'success' | 'processing' | 'warning' | 'error' | 'default'>;
  /** Worked out by the form as the rows' chosen options add up (see SumSpec); shown, never typed. */
  sum?: SumSpec;
  /** List column: the value is the path of a picture fetched with the session's headers (a thumbnail). */
  image?: boolean;
  /** A DICOM value as the archive keeps it: DA (YYYYMMDD, searched by days), TM (HHMMSS) or PN (Alphabetic=Ideographic). */
  dicom?: 'DA' | 'TM' | 'PN';
  /** Query bar: several values may be chosen; the filter gets the list. */
  multiple?: boolean;
  /** Query bar, a field searched by days: the quick range preset when the list opens, and whether one is required. */
  range?: { initial?: QuickRange; required?: boolean };
  /** Array of objects: rows can be moved up and down (their order means something: a print layout's items). */
  orderable?: boolean;
  /** Array of objects: a table of rows (default) or a card per row (rows with longer texts). */
  array?: 'table' | 'cards';
}

/**
 * A total the form keeps up to date (view hint `sum`): over the rows of the array
 * field `of`, the `value` of the option chosen in each row's `option` field (its
 * options come from the view's hint of "<of>.<option>", whose resource sends `value`
 * as one of its optionFields). The server computes the stored total itself.
 */
export interface SumSpec {
  of: string;
  option: string;
  value: string;
}

/** A test of one row field: has a value (present true) or none, or its value is one of `in`. */
export type RowCondition = { field: string; present: boolean } | { field: string; in: Scalar[] };

/**
 * A read-only list a row action shows in a dialog (an exam's operation record): the
 * rows `call` answers for the row (`data.list`), described by an entity schema.
 */
export interface RowList {
  /** `{field}` in the path takes the row's value; a body value "{field}" takes it as it is (a number stays a number). */
  call: { method: 'POST' | 'GET'; path: string; body?: Record<string, Scalar> };
  /** schemas/entities/<entity>.json describes a row: titles entity.<entity>.field.<f>, dates and code tables from it. */
  entity: string;
  /** Columns in order; an object field shows its present properties as "label: value". */
  columns: string[];
  /** By field (dotted when nested): a value, or each value of a list, shows as the text <textKey>.<value>. */
  fields?: Record<string, { textKey: string }>;
}

/** A call of a row action: `{field}` in the path takes the row's value; a body value "{field}" the row's value as it is. */
export interface ActionCall {
  method: 'POST' | 'GET';
  path: string;
  body?: Record<string, Scalar>;
}

/**
 * Choose a row of another view's list in a dialog, then call (the exam list's manual
 * match): `filters` always apply ("{field}" from the row); the call's body takes
 * "{field}" from the row and "{picked.field}" from the chosen row.
 */
export interface PickSpec {
  view: string;
  /** Columns and query bar of the dialog; default the view's. */
  columns?: string[];
  query?: string[];
  filters?: Record<string, Scalar>;
  call: ActionCall;
}

/**
 * A bespoke dialog of the dialog registry (src/schema/dialogs.ts) for a row (or for
 * the list, from the toolbar), with extra `props`; `then` names a row action (a call)
 * the dialog offers once its work is done.
 */
export interface DialogSpec {
  component: string;
  props?: Record<string, unknown>;
  then?: string;
}

/**
 * A toolbar button, with `<view.permission>:<permission>` (or a permission of another
 * module): opens a dialog, makes a call (asking first with `confirm`), or applies a filter
 * to the query bar, with a count on it (`badge`). With
 * `selection` it acts on the rows ticked in the table (disabled while none is): the
 * dialog gets them as `rows`, a call body value "{selected.field}" takes the list of
 * their values of that field.
 */
export interface ToolbarAction {
  key: string;
  permission: string;
  dialog?: DialogSpec;
  call?: ActionCall;
  confirm?: boolean;
  selection?: boolean;
  /** Query-bar values the button applies (then the list runs), instead of a dialog or call. */
  filter?: Record<string, string | number | boolean>;
  /** GET path answering {count}: shown on the button, asked again whenever the list loads. */
  badge?: string;
}

/**
 * What a row action asks the user before its call (view rowActions[].input), put into
 * the call's body: a reason whose limits are those the workflow table declares for the
 * action (config/workflows/<workflow>.json `actions.<action>.reason`, a text definition
 * of common.json), and/or a choice among the rows a call answers for the row (`id` and
 * `name`, e.g. the doctors a report may be assigned to) sent as `field`.
 */
export interface InputSpec {
  reason?: { workflow: string; action: string };
  choose?: { field: string; call: ActionCall; multiple?: boolean };
}

/**
 * Sub-lists of a resource (view.list.kinds): POST {base}/list/<key>, one tab each,
 * offered when the user holds one of its rights (text entity.<entity>.kind.<key>).
 * Row action paths may name the chosen one as {$kind}.
 */
export interface ListKind {
  key: string;
  permission: string | string[];
}

/**
 * A side tree of the list's filter values (view.list.tree): `call` answers nodes
 * {name, children}; a node at depth i filters `levels[i]` by its name, with its
 * ancestors' names on the levels above (report templates: class 1 → class 2).
 * `rename`: POST path renaming a node (body: the call's query, the node's filters and
 * `name`, held to the limits of the node's level field), with that right.
 */
export interface TreeSpec {
  call: { method: 'GET'; path: string; query?: Record<string, Scalar> };
  levels: string[];
  rename?: { path: string; permission: string };
}

/**
 * A per-row action beyond detail / edit / delete: a call (unlock a user), a screen to
 * open (a patient's history), a list to show (an exam's operation record), a row of
 * another list to pick and then call (manual match) or a bespoke dialog (an exam's
 * images), exactly one of them; offered when the user holds
 * `<view.permission>:<permission>` (or `permission` itself when it names another
 * module, "image:manualLink"), the row's `actions` has its `workflow` action and
 * `visibleWhen` holds for the row.
 */
export interface RowAction {
  key: string;
  permission: string;
  /** `{field}` in the path takes the row's value ("/api/ucenter/v1/user/unlock/{id}"). */
  call?: ActionCall;
  /** A client route, `{field}` filled the same way ("/history?patientId={patientId}"). */
  open?: { path: string };
  list?: RowList;
  pick?: PickSpec;
  dialog?: DialogSpec;
  confirm?: boolean;
  /** Values asked for in a dialog before the call (a reason, a choice). */
  input?: InputSpec;
  /** The workflow action it takes or opens: offered while the row's `actions` (the server's answer) has it. */
  workflow?: string;
  /** One condition, or several that must all hold. */
  visibleWhen?: RowCondition | RowCondition[];
}

/**
 * How the action column shows a row's actions (view list.actionMenu): `inline` links,
 * the first the row offers in the order of `primary` (detail, edit, delete or a row
 * action's key) and then the column's, the rest under "more".
 */
export interface ActionMenu {
  inline?: number;
  primary?: string[];
}

/** The generic actions of a view's screens; a view may name them differently in its module. */
export type ViewAction = 'view' | 'add' | 'edit' | 'delete';

/**
 * Excel import / export / template on a list (view.list.excel): the resource whose base
 * path serves them and the query field that scopes them (e.g. the chosen dictionary).
 */
export interface ExcelSpec {
  resource: string;
  filter: string;
}

/** A background export of the list (view.list.export): the API path that queues it with the list's filters, and the date-time field whose range it needs. */
export interface ExportSpec {
  call: string;
  range: string;
}

export interface SortSpec {
  field: string;
  order: 'ascend' | 'descend';
}

/** A view's form: its groups of fields, on its own page or in a modal over the list. */
export interface ViewForm {
  mode?: 'page' | 'modal';
  columns?: number;
  /** A wizard: one step per group, validated before the next, with a saved draft (./toSteps.ts). */
  steps?: boolean;
  groups: Array<{ key: string; fields: string[] }>;
  /** A live panel of the form-aside registry (src/schema/formAsides.tsx) beside the modal form: the print layout's preview. */
  aside?: { component: string; props?: Record<string, unknown> };
}

export interface View {
  $id: string;
  entity: string;
  resource: string;
  permission: string;
  fixedFilters?: Record<string, Scalar>;
  list: {
    columns: string[];
    query?: string[];
    sortable?: string[];
    defaultSort?: SortSpec;
    excel?: ExcelSpec;
    export?: ExportSpec;
    kinds?: ListKind[];
    tree?: TreeSpec;
    actionMenu?: ActionMenu;
    /** Delete is offered only while the condition(s) hold for the row. */
    removeWhen?: RowCondition | RowCondition[];
  };
  /** None: a list whose rows open a screen of their own (no detail, create or edit). */
  form?: ViewForm;
  fields?: Record<string, FieldHint>;
  rowActions?: RowAction[];
  toolbarActions?: ToolbarAction[];
  /** Right of the module for each generic action, where it is not the action's own name. */
  actions?: Partial<Record<ViewAction, string>>;
  routes: { list: string; form?: string };
}

export interface Option {
  value: string | number;
  label: string;
  /** A resource's optionFields (config/resources.json), e.g. an exam item's price. */
  [field: string]: unknown;
}

/** Translation function: the engine's pure parts take it instead of importing i18next. */
export type Translate = (key: string, params?: Record<string, unknown>) => string;
