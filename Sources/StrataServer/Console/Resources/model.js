// A service's model as the signed-in caller sees it, read from its CSDL 4.0 `$metadata` (XML,
// parsed by the browser's DOMParser): sets, their properties with types and facets, keys,
// navigation properties with their target sets, and the caller's rights from the annotations
// (Capabilities.*Restrictions, Core.Computed, Core.Immutable, Core.Permissions).
import { request, session } from "/console/api.js";

const cache = new Map();

/// The model of `service`, read once per sign-in.
export async function model(service) {
  const cacheKey = `${(session() || {}).token || ""} ${service}`;
  if (!cache.has(cacheKey)) {
    cache.set(cacheKey, request(`/${encodeURIComponent(service)}/$metadata`, { headers: { Accept: "application/xml" } })
      .then(parseCSDL)
      .catch((error) => { cache.delete(cacheKey); throw error; }));
  }
  return cache.get(cacheKey);
}

function annotated(element, term) {
  return [...element.children].some((child) => child.localName === "Annotation" && child.getAttribute("Term") === term && child.getAttribute("Bool") !== "false");
}

function restriction(set, term, property) {
  const annotation = [...set.children].find((child) => child.localName === "Annotation" && child.getAttribute("Term") === term);
  if (!annotation) return true;
  const value = [...annotation.getElementsByTagNameNS("*", "PropertyValue")].find((element) => element.getAttribute("Property") === property);
  return !value || value.getAttribute("Bool") !== "false";
}

export function parseCSDL(text) {
  const document = new DOMParser().parseFromString(text, "application/xml");
  const types = {};
  for (const element of document.getElementsByTagNameNS("*", "EntityType")) {
    const namespace = element.parentElement.getAttribute("Namespace");
    const keys = [...element.getElementsByTagNameNS("*", "PropertyRef")].map((ref) => ref.getAttribute("Name"));
    const properties = [...element.children].filter((child) => child.localName === "Property").map((property) => ({
      name: property.getAttribute("Name"),
      type: property.getAttribute("Type"),
      nullable: property.getAttribute("Nullable") !== "false",
      maxLength: property.hasAttribute("MaxLength") ? Number(property.getAttribute("MaxLength")) : null,
      computed: annotated(property, "Core.Computed"),
      hasDefault: annotated(property, "Core.ComputedDefaultValue") || property.hasAttribute("DefaultValue"),
      immutable: annotated(property, "Core.Immutable"),
      readOnly: [...property.children].some((child) => child.localName === "Annotation" && child.getAttribute("Term") === "Core.Permissions"
        && (child.getAttribute("EnumMember") || "").endsWith("/Read")),
      key: keys.includes(property.getAttribute("Name")),
    }));
    const navigation = [...element.children].filter((child) => child.localName === "NavigationProperty").map((nav) => ({
      name: nav.getAttribute("Name"),
      many: nav.getAttribute("Type").startsWith("Collection("),
    }));
    types[`${namespace}.${element.getAttribute("Name")}`] = { name: element.getAttribute("Name"), keys, properties, navigation };
  }
  const sets = {};
  for (const element of document.getElementsByTagNameNS("*", "EntitySet")) {
    const type = types[element.getAttribute("EntityType")];
    if (!type) continue;
    const targets = {};
    for (const binding of element.getElementsByTagNameNS("*", "NavigationPropertyBinding")) targets[binding.getAttribute("Path")] = binding.getAttribute("Target");
    sets[element.getAttribute("Name")] = {
      name: element.getAttribute("Name"), type, targets,
      insertable: restriction(element, "Capabilities.InsertRestrictions", "Insertable"),
      updatable: restriction(element, "Capabilities.UpdateRestrictions", "Updatable"),
      deletable: restriction(element, "Capabilities.DeleteRestrictions", "Deletable"),
    };
  }
  return { sets };
}

const numeric = new Set(["Edm.Int16", "Edm.Int32", "Edm.Int64", "Edm.Byte", "Edm.SByte", "Edm.Decimal", "Edm.Double", "Edm.Single"]);

/// A value as an OData literal of `type`, for key predicates and `$filter`.
export function literal(value, type) {
  if (value === null || value === undefined) return "null";
  if (type === "Edm.String") return `'${String(value).replaceAll("'", "''")}'`;
  if (type === "Edm.Guid" || numeric.has(type) || type === "Edm.Boolean") return String(value);
  if (type && type.startsWith("Edm.Date") || type === "Edm.TimeOfDay") return String(value);
  if (type === "Edm.Binary") return `binary'${value}'`;
  return `'${String(value).replaceAll("'", "''")}'`;
}

export function isNumeric(type) { return numeric.has(type); }

/// The key predicate of `row` in `set`: `5`, or `PartitionKey='a',RowKey='b'`.
export function keyPredicate(set, row) {
  const keys = set.type.keys;
  const property = (name) => set.type.properties.find((p) => p.name === name);
  if (keys.length === 1) return literal(row[keys[0]], property(keys[0]).type);
  return keys.map((name) => `${name}=${literal(row[name], property(name).type)}`).join(",");
}

/// A key predicate's parts: [[name or null, literal text], …], split at commas outside quotes.
export function predicateParts(predicate) {
  const parts = [];
  let current = "";
  let quoted = false;
  for (const character of predicate) {
    if (character === "'") quoted = !quoted;
    if (character === "," && !quoted) { parts.push(current); current = ""; } else current += character;
  }
  parts.push(current);
  return parts.map((part) => {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(part);
    return match && !part.startsWith("'") ? [match[1], match[2]] : [null, part];
  });
}

/// A literal's value in Swift source: 'text' as a string literal, anything else as written.
export function swiftLiteral(text, swiftString) {
  if (text.startsWith("'") && text.endsWith("'")) return swiftString(text.slice(1, -1).replaceAll("''", "'"));
  return text;
}

/// `.key(…)` for StrataClient from a key predicate.
export function swiftKey(predicate, swiftString) {
  const parts = predicateParts(predicate);
  if (parts.length === 1 && parts[0][0] === null) return `.key(${swiftLiteral(parts[0][1], swiftString)})`;
  return `.key([${parts.map(([name, value]) => `${swiftString(name)}: ${swiftLiteral(value, swiftString)}`).join(", ")}])`;
}
