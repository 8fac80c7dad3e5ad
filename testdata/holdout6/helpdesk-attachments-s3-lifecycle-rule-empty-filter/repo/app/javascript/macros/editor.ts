export const MAX_MACRO_ACTIONS = 12;
