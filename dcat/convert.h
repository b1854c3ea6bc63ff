/*
 * convert.h: dirigo streams to JSON Lines and back (the work of dcat).
 *
 * Lossless mapping (see dcat(1)): nil, bool, integers, float64 and UTF-8
 * strings map to plain JSON; the rest to one-key objects:
 *   {"$bin":"BASE64"}          MessagePack bin
 *   {"$str":"BASE64"}          a str that is not valid UTF-8
 *   {"$f32":NUMBER}            float32
 *   {"$f64":"nan"|"inf"|"-inf"} non-finite float64
 *   {"$u64":"DECIMAL"}         integers above 2^63-1
 *   {"$ext":TYPE,"data":"BASE64"}
 */
#ifndef DCAT_CONVERT_H
#define DCAT_CONVERT_H

#include <stdio.h>

#include "libcommon/stream.h"

/* Writes the record as one JSON line; returns 0, or -1 after a message. */
int record_to_json(const struct record *rec, FILE *out);
/* Every record of in as JSON Lines; returns the exit status (2 after a
 * message, which for a stream without its end record comes after the
 * records it holds). */
enum exit_status stream_to_json(struct stream_in *in, FILE *out);
/* Reads JSON Lines from f (named name) and writes each object as a record;
 * returns the exit status (0, or 2 after a message naming name:line).
 * End records are written where the JSON has them ("t":"end"), never
 * added; their "records" and "counts" are those of what was written. */
enum exit_status json_to_stream(FILE *f, const char *name, struct stream_out *w);

#endif
