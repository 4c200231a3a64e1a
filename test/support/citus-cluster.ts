/**
 * A Citus cluster of the test's own (a coordinator and workers as Debian Postgres clusters, as
 * ../shared/vendor/citus/citus.sh makes the shared one), for the tests that change a cluster's
 * shape: add a worker, move shards. Rejected: doing that on the shared cluster (:5441), where
 * every other Citus test of the run has its schemas.
 *
 * Needs the citus extension in the system Postgres 15 (`citus.sh build`) and Debian's
 * postgresql-common (pg_createcluster, pg_ctlcluster, pg_dropcluster). Postgres refuses to run as
 * root: these tools, run as root, create and start the clusters as the postgres user.
 */
import { execFile } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);
const PG_VERSION = "15";
const CITUS_SO = `/usr/lib/postgresql/${PG_VERSION}/lib/citus.so`;

/** Why a cluster cannot be had here (the test skips with it), or null. */
export function citusClusterUnavailable(): string | null {
  if (!existsSync(CITUS_SO)) return `citus is not installed in Postgres ${PG_VERSION} (run ../shared/vendor/citus/citus.sh build)`;
  if (!existsSync("/usr/bin/pg_createcluster")) return "Debian's pg_createcluster is missing (apt-get install postgresql-common)";
  const uid = process.getuid?.();
  if (uid !== 0 && process.env.USER !== "postgres") return "pg_createcluster needs root or the postgres user";
  return null;
}

export interface CitusNode {
  name: string;
  port: number;
  url: string;
}

export interface CitusCluster {
  coordinator: CitusNode;
  /** the workers added to the coordinator so far */
  workers: CitusNode[];
  /** made and started, not yet added (addWorker adds it) */
  spares: CitusNode[];
  /** One statement on the coordinator. */
  sql<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, params?: unknown[]): Promise<R[]>;
  /** citus_add_node for the next spare: it holds no shard until a rebalance moves some there. */
  addWorker(): Promise<CitusNode>;
  /** Stops and deletes every cluster this made. */
  drop(): Promise<void>;
}

export interface CitusClusterOptions {
  /** Cluster names are `${prefix}${port}`: a name per test file, so that two files never share one. */
  prefix: string;
  coordinatorPort: number;
  workerPorts: number[];
  /** made and started with the others but not added to the coordinator */
  sparePorts?: number[];
  /** postgresql.conf lines beyond the ones every node gets */
  settings?: Record<string, string>;
}

/**
 * Every node's settings. wal_level = logical: Citus moves a shard by logical replication (copy,
 * then catch up, then a short write block at the switch-over); with `replica` a rebalance's
 * moves wait forever for a replication slot they cannot make. fsync = off: these clusters are
 * thrown away after the test and no test of them crashes a node; Rejected: fsync on, which
 * costs seconds of initdb and commits on a shared 2-core machine and is not what they test.
 */
const BASE_SETTINGS: Record<string, string> = {
  shared_preload_libraries: "citus",
  max_connections: "300",
  wal_level: "logical",
  max_worker_processes: "32",
  max_replication_slots: "20",
  max_wal_senders: "20",
  fsync: "off",
  synchronous_commit: "off",
  full_page_writes: "off",
};

const nodeOf = (prefix: string, port: number): CitusNode => ({ name: `${prefix}${port}`, port, url: `postgres://postgres@127.0.0.1:${port}/postgres` });

async function exists(name: string): Promise<boolean> {
  const { stdout } = await run("pg_lsclusters", ["-h"]);
  return stdout.split("\n").some((l) => l.split(/\s+/)[1] === name);
}

async function dropNode(node: CitusNode): Promise<void> {
  if (await exists(node.name)) await run("pg_dropcluster", [PG_VERSION, node.name, "--stop"]);
}

async function makeNode(node: CitusNode, settings: Record<string, string>): Promise<void> {
  await dropNode(node); // a cluster a killed run left behind
  const opts = Object.entries(settings).flatMap(([k, v]) => ["-o", `${k}=${v}`]);
  await run("pg_createcluster", [PG_VERSION, node.name, "--port", String(node.port), ...opts, "--", "--no-sync"]);
  writeFileSync(
    `/etc/postgresql/${PG_VERSION}/${node.name}/pg_hba.conf`,
    "local all all trust\nhost all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n",
  );
  await run("pg_ctlcluster", [PG_VERSION, node.name, "start"]);
  const client = new pg.Client({ connectionString: node.url });
  await client.connect();
  try {
    await client.query("create extension if not exists citus");
  } finally {
    await client.end();
  }
}

/** Makes and starts the nodes (in parallel), then adds the workers to the coordinator. */
export async function createCitusCluster(opts: CitusClusterOptions): Promise<CitusCluster> {
  const coordinator = nodeOf(opts.prefix, opts.coordinatorPort);
  const workers = opts.workerPorts.map((p) => nodeOf(opts.prefix, p));
  const spares = (opts.sparePorts ?? []).map((p) => nodeOf(opts.prefix, p));
  const all = [coordinator, ...workers, ...spares];
  const settings = { ...BASE_SETTINGS, ...opts.settings };
  const pool = new pg.Pool({ connectionString: coordinator.url, max: 2 });
  const sql = async <R extends pg.QueryResultRow>(text: string, params: unknown[] = []) => (await pool.query<R>(text, params)).rows;
  const cluster: CitusCluster = {
    coordinator,
    workers: [],
    spares,
    sql,
    async addWorker() {
      const node = cluster.spares.shift();
      if (!node) throw new Error("createCitusCluster: no spare node left to add; give sparePorts");
      await sql(`select citus_add_node('127.0.0.1', $1::int)`, [node.port]);
      cluster.workers.push(node);
      return node;
    },
    async drop() {
      await pool.end().catch(() => {});
      for (const node of all) await dropNode(node).catch((err: unknown) => console.warn(`[citus-cluster] could not drop ${node.name}: ${String(err)}`));
    },
  };
  try {
    await Promise.all(all.map((n) => makeNode(n, settings)));
    await sql(`select citus_set_coordinator_host('127.0.0.1', $1::int)`, [coordinator.port]);
    for (const w of workers) {
      await sql(`select citus_add_node('127.0.0.1', $1::int)`, [w.port]);
      cluster.workers.push(w);
    }
  } catch (err) {
    await cluster.drop();
    throw err;
  }
  return cluster;
}
