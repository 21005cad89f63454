package document

import (
	"errors"
	"fmt"
)

// Code is a MongoDB error code. Its String method gives the code name.
type Code int32

// The MongoDB error codes ttlkv returns. Each is returned for the user
// mistake MongoDB returns it for; see docs/commands.md §9.
const (
	CodeInternalError                   Code = 1     // an engine fault, not a user mistake
	CodeBadValue                        Code = 2     // a value out of range or of the wrong form
	CodeFailedToParse                   Code = 9     // a command or option that cannot be parsed
	CodeUnauthorized                    Code = 13    // an admin-only command run against another database
	CodeTypeMismatch                    Code = 14    // a value of the wrong BSON type
	CodeOverflow                        Code = 15    // a document nested too deeply
	CodeInvalidBSON                     Code = 22    // bytes that are not a valid BSON document
	CodeIllegalOperation                Code = 20    // an operation the collection kind forbids
	CodeNamespaceNotFound               Code = 26    // the collection or database does not exist
	CodeIndexNotFound                   Code = 27    // the named index does not exist
	CodePathNotViable                   Code = 28    // an update path through a non-container
	CodeCannotBackfillArray             Code = 34    // an update past an array's end by more than 1,500,000 elements
	CodeConflictingUpdateOperators      Code = 40    // two update modifiers on overlapping paths
	CodeCursorNotFound                  Code = 43    // getMore on an unknown or killed cursor
	CodeNamespaceExists                 Code = 48    // create of an existing collection with other options
	CodeMaxTimeMSExpired                Code = 50    // an operation ran past its maxTimeMS
	CodeDollarPrefixedFieldName         Code = 52    // a replacement with a $-prefixed field
	CodeInvalidIDField                  Code = 53    // an _id of a forbidden type
	CodeNotSingleValueField             Code = 54    // an upsert filter that fixes one path twice, or a path and its prefix
	CodeInvalidDBRef                    Code = 55    // an update that leaves top-level $ref, $id or $db out of DBRef order
	CodeEmptyFieldName                  Code = 56    // an update path with an empty component
	CodeCommandNotFound                 Code = 59    // an unknown command name
	CodeImmutableField                  Code = 66    // an update that changes _id
	CodeCannotCreateIndex               Code = 67    // an index spec that cannot be built
	CodeInvalidOptions                  Code = 72    // options that are invalid together or for the target
	CodeInvalidNamespace                Code = 73    // a bad database or collection name
	CodeInvalidPipelineOperator         Code = 168   // an unknown expression, or a find option a view's aggregate has not
	CodeInvalidLength                   Code = 16    // a write batch of no statement or too many
	CodeNoMatchingDocument              Code = 47    // a change event whose required pre- or post-image is missing
	CodeNoReplicationEnabled            Code = 76    // a replica-set command: ttlkv is a standalone server
	CodeIndexOptionsConflict            Code = 85    // an index exists with the same name or key but other options
	CodeIndexKeySpecsConflict           Code = 86    // an index exists with the same name but another key
	CodeNotExactValueField              Code = 111   // a replacement upsert whose filter fixes only part of _id
	CodeWriteConflict                   Code = 112   // a write that lost a race with another
	CodeDocumentValidationFailure       Code = 121   // a document that fails its collection's validator
	CodeCommandNotSupported             Code = 115   // a command or option the engine does not offer
	CodeCappedPositionLost              Code = 136   // a capped cursor's position was overwritten
	CodeCommandFailed                   Code = 125   // a command refused for a reason with no code of its own
	CodeDurationOverflow                Code = 159   // a count of time that does not fit 64 bits in a finer unit
	CodeCommandNotSupportedOnView       Code = 166   // a command a time-series view cannot run
	CodeCannotIndexParallelArrays       Code = 171   // a compound index key over two arrays of one document
	CodeQueryPlanKilled                 Code = 175   // a cursor whose collection was dropped
	CodeAmbiguousIndexKeyPattern        Code = 181   // a key pattern that matches several indexes
	CodeInvalidIndexSpecificationOption Code = 197   // an index option invalid for this index
	CodeConversionFailure               Code = 241   // a value an aggregation operator cannot convert
	CodeInvalidResumeToken              Code = 260   // a change stream resume token that is malformed or cannot be resumed from
	CodeChangeStreamFatalError          Code = 280   // a change stream that cannot go on (a modified resume token, a missing required image)
	CodeChangeStreamHistoryLost         Code = 286   // a change stream position trimmed from the change log
	CodeNotWritablePrimary              Code = 10107 // a write to a secondary or read-only engine
	CodeCannotGrowDocumentInCappedNS    Code = 10003 // a capped update that grows the document beyond its record
	CodeOutOfDiskSpace                  Code = 14031 // a capped collection whose ring file the disk cannot hold
	CodeBSONObjectTooLarge              Code = 10334 // a document over 16 MiB
	CodeExceededMemoryLimit             Code = 146   // an expression's value would take too much memory
	CodeQueryExceededMemoryLimit        Code = 292   // a blocking stage over its memory limit, without disk use
	CodeMaxSubPipelineDepthExceeded     Code = 269   // $lookup and $unionWith pipelines nested too deeply
	CodeDuplicateKey                    Code = 11000 // a unique index already holds the key
	CodeIDLUnknownField                 Code = 40415 // an unknown field in a command or option document
	CodeIDLFailedToParse                Code = 40414 // a required field missing from a command or option document
	CodeMergeStageNoMatchingDocument    Code = 13113 // $merge with whenNotMatched: fail found no document to merge into
	CodeGraphContainsCycle              Code = 140   // a view defined on itself through other views
	CodeOptionNotSupportedOnView        Code = 167   // an option or stage a view cannot have
	CodeViewDepthLimitExceeded          Code = 165   // views standing on more than 20 views
	CodeViewPipelineMaxSizeExceeded     Code = 195   // views whose pipelines together pass 16,000,000 bytes
	CodeNoSuchKey                       Code = 4     // a required field missing from an operator's document
	CodeNoQueryExecutionPlans           Code = 291   // a query no plan can answer (a $text the text index cannot serve)
	CodeOperationFailed                 Code = 96    // an operation that cannot proceed (dataSize finds no index for its key pattern)
	CodeKeyPatternShorterThanBound      Code = 349   // a range bound with more fields than the index key pattern
	CodeUnknownError                    Code = 8     // a script threw a value that is not an object
	CodeJSInterpreterFailure            Code = 139   // a script threw, or does not compile
	CodeInterrupted                     Code = 11601 // an operation (a script) stopped from outside
	CodeCannotConvertIndexToUnique      Code = 359   // collMod unique: true over an index holding duplicate keys
)

var codeNames = map[Code]string{
	CodeInternalError:                   "InternalError",
	CodeBadValue:                        "BadValue",
	CodeCommandFailed:                   "CommandFailed",
	CodeMergeStageNoMatchingDocument:    "MergeStageNoMatchingDocument",
	CodeGraphContainsCycle:              "GraphContainsCycle",
	CodeOptionNotSupportedOnView:        "OptionNotSupportedOnView",
	CodeViewDepthLimitExceeded:          "ViewDepthLimitExceeded",
	CodeViewPipelineMaxSizeExceeded:     "ViewPipelineMaxSizeExceeded",
	CodeNoSuchKey:                       "NoSuchKey",
	CodeNoQueryExecutionPlans:           "NoQueryExecutionPlans",
	CodeUnknownError:                    "UnknownError",
	CodeJSInterpreterFailure:            "JSInterpreterFailure",
	CodeInterrupted:                     "Interrupted",
	CodeFailedToParse:                   "FailedToParse",
	CodeUnauthorized:                    "Unauthorized",
	CodeTypeMismatch:                    "TypeMismatch",
	CodeOverflow:                        "Overflow",
	CodeInvalidBSON:                     "InvalidBSON",
	CodeIllegalOperation:                "IllegalOperation",
	CodeInvalidResumeToken:              "InvalidResumeToken",
	CodeChangeStreamFatalError:          "ChangeStreamFatalError",
	CodeChangeStreamHistoryLost:         "ChangeStreamHistoryLost",
	CodeNamespaceNotFound:               "NamespaceNotFound",
	CodeIndexNotFound:                   "IndexNotFound",
	CodePathNotViable:                   "PathNotViable",
	CodeConflictingUpdateOperators:      "ConflictingUpdateOperators",
	CodeCursorNotFound:                  "CursorNotFound",
	CodeNamespaceExists:                 "NamespaceExists",
	CodeMaxTimeMSExpired:                "MaxTimeMSExpired",
	CodeDollarPrefixedFieldName:         "DollarPrefixedFieldName",
	CodeInvalidIDField:                  "InvalidIdField",
	CodeCannotBackfillArray:             "CannotBackfillArray",
	CodeNotSingleValueField:             "NotSingleValueField",
	CodeInvalidDBRef:                    "InvalidDBRef",
	CodeNotExactValueField:              "NotExactValueField",
	CodeEmptyFieldName:                  "EmptyFieldName",
	CodeCommandNotFound:                 "CommandNotFound",
	CodeImmutableField:                  "ImmutableField",
	CodeCannotCreateIndex:               "CannotCreateIndex",
	CodeInvalidOptions:                  "InvalidOptions",
	CodeInvalidNamespace:                "InvalidNamespace",
	CodeInvalidLength:                   "InvalidLength",
	CodeNoMatchingDocument:              "NoMatchingDocument",
	CodeNoReplicationEnabled:            "NoReplicationEnabled",
	CodeIndexOptionsConflict:            "IndexOptionsConflict",
	CodeInvalidPipelineOperator:         "InvalidPipelineOperator",
	CodeIndexKeySpecsConflict:           "IndexKeySpecsConflict",
	CodeWriteConflict:                   "WriteConflict",
	CodeDocumentValidationFailure:       "DocumentValidationFailure",
	CodeCommandNotSupported:             "CommandNotSupported",
	CodeCappedPositionLost:              "CappedPositionLost",
	CodeDurationOverflow:                "DurationOverflow",
	CodeCommandNotSupportedOnView:       "CommandNotSupportedOnView",
	CodeCannotIndexParallelArrays:       "CannotIndexParallelArrays",
	CodeQueryPlanKilled:                 "QueryPlanKilled",
	CodeAmbiguousIndexKeyPattern:        "AmbiguousIndexKeyPattern",
	CodeInvalidIndexSpecificationOption: "InvalidIndexSpecificationOption",
	CodeConversionFailure:               "ConversionFailure",
	CodeNotWritablePrimary:              "NotWritablePrimary",
	CodeCannotGrowDocumentInCappedNS:    "CannotGrowDocumentInCappedNamespace",
	CodeOutOfDiskSpace:                  "OutOfDiskSpace",
	CodeBSONObjectTooLarge:              "BSONObjectTooLarge",
	CodeExceededMemoryLimit:             "ExceededMemoryLimit",
	CodeQueryExceededMemoryLimit:        "QueryExceededMemoryLimitNoDiskUseAllowed",
	CodeMaxSubPipelineDepthExceeded:     "MaxSubPipelineDepthExceeded",
	CodeDuplicateKey:                    "DuplicateKey",
	CodeOperationFailed:                 "OperationFailed",
	CodeKeyPatternShorterThanBound:      "KeyPatternShorterThanBound",
	CodeIDLUnknownField:                 "IDLUnknownField",
	CodeCannotConvertIndexToUnique:      "CannotConvertIndexToUnique",
	CodeIDLFailedToParse:                "Location40414",
}

// String returns the MongoDB code name, or "Location<code>" for a code
// without a name.
func (c Code) String() string {
	if n, ok := codeNames[c]; ok {
		return n
	}
	return fmt.Sprintf("Location%d", int32(c))
}

// Error is a failure a user can cause, carrying MongoDB's numeric code,
// code name and a message that says what was wrong. Command replies
// render it as {ok: 0, errmsg, code, codeName}. Use errors.As to get it
// from a wrapped error.
type Error struct {
	Code    Code
	Message string
	// Info holds extra reply fields, such as keyPattern and keyValue
	// for DuplicateKey. It may be nil.
	Info map[string]any
}

// Error formats the error as "CodeName (code): message".
func (e *Error) Error() string {
	return fmt.Sprintf("%s (%d): %s", e.Code, int32(e.Code), e.Message)
}

// Name returns the code name, such as "CannotCreateIndex".
func (e *Error) Name() string { return e.Code.String() }

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, &document.Error{Code: document.CodeDuplicateKey}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Errorf returns an *Error with the code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CodeOf returns the code of the first *Error in err's chain, or
// CodeInternalError if err is non-nil and carries none, or 0 for nil.
func CodeOf(err error) Code {
	if err == nil {
		return 0
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternalError
}
