// The types of preact-htm.js (htm 3.1.1 with the Preact 10 core and hooks), for TypeScript's check of the pages
// only: the declarations of the npm packages preact and htm, cut down to what the bundle exports.

/** A virtual DOM node (what `html` and `h` return). */
export interface VNode<P = any> {
  type: any;
  props: P & { children?: any };
  key: any;
}
export type ComponentChild = VNode | string | number | bigint | boolean | null | undefined | ComponentChild[];
export type ComponentChildren = ComponentChild;
export type FunctionComponent<P = {}> = (props: P & { children?: ComponentChildren }) => ComponentChild;

/** htm's tagged template bound to Preact's `h`. */
export function html(strings: TemplateStringsArray, ...values: any[]): any;
export function h(type: any, props: any, ...children: ComponentChildren[]): VNode;
export function render(vnode: ComponentChild, parent: Element | DocumentFragment): void;
export class Component<P = {}, S = {}> {
  constructor(props?: P, context?: any);
  props: P;
  state: S;
  setState(state: Partial<S> | ((previous: S, props: P) => Partial<S>), callback?: () => void): void;
  forceUpdate(callback?: () => void): void;
  render(props?: P, state?: S, context?: any): ComponentChild;
}
export interface Context<T> { Provider: any; Consumer: any; }
export function createContext<T>(value: T): Context<T>;

export type StateUpdater<S> = (value: S | ((previous: S) => S)) => void;
export function useState<S>(initial: S | (() => S)): [S, StateUpdater<S>];
export function useState<S = undefined>(): [S | undefined, StateUpdater<S | undefined>];
export function useReducer<S, A>(reducer: (state: S, action: A) => S, initial: S): [S, (action: A) => void];
export function useEffect(effect: () => void | (() => void), inputs?: readonly unknown[]): void;
export function useLayoutEffect(effect: () => void | (() => void), inputs?: readonly unknown[]): void;
export interface Ref<T> { current: T; }
export function useRef<T>(initial: T): Ref<T>;
export function useRef<T>(initial: T | null): Ref<T | null>;
export function useRef<T = undefined>(): Ref<T | undefined>;
export function useImperativeHandle<T>(ref: Ref<T> | undefined, create: () => T, inputs?: readonly unknown[]): void;
export function useMemo<T>(factory: () => T, inputs: readonly unknown[] | undefined): T;
export function useCallback<T extends Function>(callback: T, inputs: readonly unknown[]): T;
export function useContext<T>(context: Context<T>): T;
export function useDebugValue<T>(value: T, formatter?: (value: T) => any): void;
export function useErrorBoundary(callback?: (error: any) => void | Promise<void>): [any, () => void];
