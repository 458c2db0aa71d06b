/**
 * Shapes the schema engine reads: the subset of JSON Schema (draft-07) our entity files
 * use, and a view (schemas/views/_view.schema.json; every view is validated against it
 * in tests/unit/schemaViews.test.ts, so this interface only mirrors it for the compiler).
 */
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
}

/** A test of one row field: has a value (present true) or none, or its value is one of `in`. */
export type RowCondition = { field: string; present: boolean } | { field: string; in: Scalar[] };

/**
 * A per-row action beyond detail / edit / delete: a call (unlock a user) or a screen to
 * open (a patient's history), exactly one of the two; offered when the user holds
 * `<view.permission>:<permission>` and `visibleWhen` holds for the row.
 */
export interface RowAction {
  key: string;
  permission: string;
  /** `{field}` in the path takes the row's value ("/api/ucenter/v1/user/unlock/{id}"). */
  call?: { method: 'POST' | 'GET'; path: string };
  /** A client route, `{field}` filled the same way ("/history?patientId={patientId}"). */
  open?: { path: string };
  confirm?: boolean;
  /** One condition, or several that must all hold. */
  visibleWhen?: RowCondition | RowCondition[];
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

/** A background export of the list (view.list.export): the API path that queues it with the list's filters. */
export interface ExportSpec {
  call: string;
}

export interface SortSpec {
  field: string;
  order: 'ascend' | 'descend';
}

export interface View {
  $id: string;
  entity: string;
  resource: string;
  permission: string;
  fixedFilters?: Record<string, Scalar>;
  list: { columns: string[]; query?: string[]; sortable?: string[]; defaultSort?: SortSpec; excel?: ExcelSpec; export?: ExportSpec };
  form: { mode?: 'page' | 'modal'; columns?: number; groups: Array<{ key: string; fields: string[] }> };
  fields?: Record<string, FieldHint>;
  rowActions?: RowAction[];
  /** Right of the module for each generic action, where it is not the action's own name. */
  actions?: Partial<Record<ViewAction, string>>;
  routes: { list: string; form?: string };
}

export interface Option {
  value: string | number;
  label: string;
}

/** Translation function: the engine's pure parts take it instead of importing i18next. */
export type Translate = (key: string, params?: Record<string, unknown>) => string;
