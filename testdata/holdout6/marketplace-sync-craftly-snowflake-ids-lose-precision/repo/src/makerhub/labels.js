'use strict';

const LABEL_FORMAT = 'ZPL_4x6';
module.exports = { LABEL_FORMAT };
