// Delta schema JSON ⇄ Arrow: a random Delta schema (every primitive, decimals, timestamps with and without
// zone, nested struct/array/map, nullability, field metadata of any JSON value) survives Delta → Arrow →
// Delta unchanged; fixed cases pin the Arrow types; delta-rs's own schema JSON for a table it wrote with
// every type parses and converts back to the same JSON.
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import {
  Binary,
  Bool,
  DateDay,
  Decimal,
  Field,
  Int8,
  Int32,
  Int64,
  List,
  Schema,
  TimestampMillisecond,
  TimestampNanosecond,
  Uint32,
  Utf8,
} from "apache-arrow";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  arrowSchemaToDelta,
  type DeltaDataType,
  type DeltaSchema,
  type DeltaStructField,
  deltaSchemaToArrow,
  PRIMITIVE_TYPES,
  parseSchemaString,
  Snapshot,
  schemaToJson,
} from "../src/index.js";

const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.string(),
    fc.constantFrom("123", "true", "null", '"quoted"', "{}", ""),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 5 }), tie("value"), { maxKeys: 3 }),
  ),
})).value;

const primitive = fc.oneof(
  fc.constantFrom(...PRIMITIVE_TYPES),
  fc
    .integer({ min: 1, max: 38 })
    .chain((p) => fc.integer({ min: 0, max: p }).map((s) => `decimal(${p},${s})`)),
);

const deltaType: fc.Arbitrary<DeltaDataType> = fc.letrec<{ type: DeltaDataType; fields: DeltaStructField[] }>(
  (tie) => ({
    type: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      primitive,
      tie("fields").map((fields) => ({ type: "struct" as const, fields })),
      fc.record({
        type: fc.constant("array" as const),
        elementType: tie("type"),
        containsNull: fc.boolean(),
      }),
      fc.record({
        type: fc.constant("map" as const),
        keyType: primitive,
        valueType: tie("type"),
        valueContainsNull: fc.boolean(),
      }),
    ),
    fields: fc.uniqueArray(
      fc.record({
        name: fc.string({ minLength: 1, maxLength: 8 }),
        type: tie("type"),
        nullable: fc.boolean(),
        metadata: fc.dictionary(fc.string({ maxLength: 6 }), jsonValue, { maxKeys: 2 }),
      }),
      { minLength: 1, maxLength: 4, selector: (f) => f.name },
    ),
  }),
).type;

const deltaSchema: fc.Arbitrary<DeltaSchema> = deltaType
  .filter((t) => typeof t !== "string" && t.type === "struct")
  .map((t) => t as DeltaSchema);

describe("Delta schema ⇄ Arrow", () => {
  it("round-trips any Delta schema through Arrow (property)", () => {
    fc.assert(
      fc.property(deltaSchema, (schema) => {
        const back = arrowSchemaToDelta(deltaSchemaToArrow(schema));
        expect(schemaToJson(back)).toBe(schemaToJson(schema));
        expect(parseSchemaString(schemaToJson(schema))).toEqual(back);
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ["string", Utf8],
    ["long", Int64],
    ["integer", Int32],
    ["byte", Int8],
    ["boolean", Bool],
    ["binary", Binary],
    ["date", DateDay],
    ["decimal(10,2)", Decimal],
  ] as const)("%s maps to the matching Arrow type", (type, arrowType) => {
    const arrow = deltaSchemaToArrow({
      type: "struct",
      fields: [{ name: "c", type, nullable: true, metadata: {} }],
    });
    expect(arrow.fields[0]!.type).toBeInstanceOf(arrowType);
  });

  it("timestamp carries the UTC zone in microseconds; timestamp_ntz has none", () => {
    const arrow = deltaSchemaToArrow({
      type: "struct",
      fields: [
        { name: "t", type: "timestamp", nullable: true, metadata: {} },
        { name: "n", type: "timestamp_ntz", nullable: false, metadata: {} },
      ],
    });
    expect(String(arrow.fields[0]!.type)).toBe("Timestamp<MICROSECOND, UTC>");
    expect(String(arrow.fields[1]!.type)).toBe("Timestamp<MICROSECOND>");
    expect(arrow.fields[1]!.nullable).toBe(false);
  });

  it("maps other Arrow units and zones onto timestamp / timestamp_ntz and refuses unsigned ints", () => {
    const schema = new Schema([
      new Field("ms", new TimestampMillisecond("Europe/Paris")),
      new Field("ns", new TimestampNanosecond()),
      new Field("xs", new List(new Field("item", new Int32(), false))),
    ]);
    expect(arrowSchemaToDelta(schema).fields.map((f) => f.type)).toEqual([
      "timestamp",
      "timestamp_ntz",
      { type: "array", elementType: "integer", containsNull: false },
    ]);
    expect(() => arrowSchemaToDelta(new Schema([new Field("u", new Uint32())]))).toThrow(
      expect.objectContaining({ kind: "unsupported" }),
    );
  });

  it("keeps plain string metadata readable in Arrow and restores JSON values exactly", () => {
    const field: DeltaStructField = {
      name: "c",
      type: "long",
      nullable: true,
      metadata: {
        comment: "a comment",
        "delta.columnMapping.id": 5,
        looksNumeric: "123",
        nested: { a: [1, "x"] },
      },
    };
    const arrow = deltaSchemaToArrow({ type: "struct", fields: [field] });
    expect(arrow.fields[0]!.metadata.get("comment")).toBe("a comment");
    expect(arrow.fields[0]!.metadata.get("delta.columnMapping.id")).toBe("5");
    expect(arrowSchemaToDelta(arrow).fields[0]).toEqual(field);
  });

  it("rejects schema strings that are not a struct with corrupt_log", () => {
    expect(() => parseSchemaString("[]")).toThrow(expect.objectContaining({ kind: "corrupt_log" }));
    expect(() => parseSchemaString("{not json")).toThrow(expect.objectContaining({ kind: "corrupt_log" }));
  });
});

describe("delta-rs's schema JSON", () => {
  let oracle: Oracle;
  let tmp: string;
  beforeAll(async () => {
    oracle = await connectOracle();
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-schema-"));
  });
  afterAll(async () => {
    oracle?.close();
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it("a table delta-rs wrote with every type converts to Arrow and back to delta-rs's exact schema", async () => {
    const uri = path.join(tmp, "all-types");
    await oracle.call("delta_write", {
      uri,
      columns: {
        s: ["a"],
        l: [1],
        i: [1],
        sh: [1],
        b: [1],
        f: [1.5],
        d: [2.5],
        bo: [true],
        bi: ["YQ=="],
        dt: ["2026-01-01"],
        ts: ["2026-01-01T00:00:00Z"],
      },
      types: {
        i: "int32",
        sh: "int16",
        b: "int8",
        f: "float32",
        bi: "binary",
        dt: "date32",
        ts: "timestamp[us, tz=UTC]",
      },
    });
    const snapshot = await Snapshot.open(new LocalFileStore(uri));
    const theirs = (await oracle.call<{ schema: unknown }>("delta_snapshot", { uri })).schema;
    expect(JSON.parse(schemaToJson(arrowSchemaToDelta(snapshot.schema)))).toEqual(theirs);
    expect(snapshot.deltaSchema.fields.map((f) => f.type)).toEqual([
      "string",
      "long",
      "integer",
      "short",
      "byte",
      "float",
      "double",
      "boolean",
      "binary",
      "date",
      "timestamp",
    ]);
  });
});
