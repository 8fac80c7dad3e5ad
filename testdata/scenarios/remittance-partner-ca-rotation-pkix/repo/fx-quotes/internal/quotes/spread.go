package quotes

const defaultSpreadBps = 85
