/**
 * Pages over the results of many jobs for a web UI: the all-jobs leaderboard and the comparison of
 * two systems ({@link dev.tenbin.eval.browse.ResultBrowser}), rendered from one warehouse file and
 * the job folders' stored cells with the aggregation and charts of the per-job leaderboard.
 */
package dev.tenbin.eval.browse;
