'use strict';

const router = require('express').Router();
const { pool } = require('../db');

router.get('/v1/classes', async (req, res, next) => {
  try {
    const { rows } = await pool.query(
      'SELECT id, title, starts_at, spots_left FROM classes WHERE studio_id = $1 AND starts_at > now() ORDER BY starts_at LIMIT 50',
      [req.query.studio],
    );
    res.json(rows);
  } catch (err) {
    next(err);
  }
});

module.exports = router;
