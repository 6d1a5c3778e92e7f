// Response bodies in tests are read loosely: the assertions, not the types, check their shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const json = (res: Response): Promise<any> => res.json();
