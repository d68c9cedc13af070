// The price of an empty side (and of a side not to quote), in ticks. In a module of its own that
// imports nothing: esbuild inlines a module constant into the bundle's other modules only from a
// module without imports. Defined in dense-book.ts (which imports), every `=== NO_PRICE` on the
// per-event path loaded a heap number from the module context and unboxed it.
export const NO_PRICE = -2147483648;
