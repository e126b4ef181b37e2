/**
 * What benches set up around what they measure: services in processes of their own, so that their
 * CPU time can be read from the operating system, and scratch folders. Depends on no bench.
 */
package dev.tenbin.bench.setup;
