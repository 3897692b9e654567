package main

// targets is internal/git by git concept: each file, what it holds, and
// the declarations it holds. Every top-level declaration of the package
// must be listed once (main.go says how names are spelled). The package
// comment goes to git.go.
var targets = []target{
	{
		File: "git.go",
		Header: `This file holds the one way a git process is started (stripped
environment, --no-optional-locks, hooks off, typed errors), long-lived
processes fed through their stdin, and helpers for git's output and
command lines.`,
		Names: []string{
			"withLocks",
			"Error", "Error.Error", "Error.Unwrap", "ExitCode", "gitError",
			"strippedEnv", "cleanEnv", "untranslated", "globalArgs",
			"cmd", "withFSMonitor", "child", "command",
			"Repo.run", "Repo.git", "Repo.line", "Repo.env",
			"ErrEnough", "stopWriter", "stopWriter.Write",
			"proc", "Repo.startProc", "proc.close", "proc.fail", "proc.wrap",
			"splitZ", "zSplitter", "zSplitter.Write",
			"maxPathArgs", "literalSpecs", "quoteStdinPath",
		},
	},
	{
		File: "repo.go",
		Header: `This file holds a repository: finding it, its object format, and
what its git dir says without a git process (an operation in progress).`,
		Names: []string{
			"memo", "discoverKey", "discover",
			"ErrNotRepository", "ErrBare", "Repo", "Discover", "discoverEnv", "discoverFast", "repoAt", "isGitDir", "isHexID", "plainRepoConfig", "deviceOf", "ownedByMe",
			"Repo.ZeroID", "Repo.EmptyTree", "Repo.ValidID", "Repo.validID", "Repo.hashLen",
			"Repo.OperationInProgress", "Repo.HeadRefLock", "RefLockedError", "RefLockedError.Error", "samePath",
		},
	},
	{
		File: "refs.go",
		Header: `This file holds refs and HEAD: listing and reading refs,
compare-and-swap updates one at a time or in one transaction (one
conflict error), and the one way to read HEAD.`,
		Names: []string{
			"Repo.refsFast", "Repo.packedRefs", "Repo.walkLoose", "refDir", "refDirs", "outermost", "goodRefComponent", "Repo.RefsAndHead", "Repo.headFast", "Repo.ReadRefFast", "Repo.readOneRef", "Repo.SetRefFast", "Repo.refNeedsGit", "Repo.relist", "refFile", "refCacheRecent", "Repo.headBranch", "Repo.headCommit",
			"ErrRefConflict", "SetRefRequest", "Repo.SetRef", "isRefLockFailure", "Repo.DeleteRef",
			"RefUpdate", "RefLockError", "RefLockError.Error", "RefLockError.Unwrap", "lockedRefRe", "Repo.UpdateRefs",
			"Ref", "Repo.ListRefs", "Repo.ReadRef", "Repo.RefsUnder", "Repo.RefsAt",
			"Head", "Head.Unborn", "Head.Detached", "Head.ShortBranch",
			"Repo.Head", "Repo.HeadTree", "Repo.headTreeFast", "Repo.headFromFiles", "Repo.mayReplace", "replaceMemo", "Repo.packedClash", "Repo.headSlow", "Repo.ResolveCommit",
			"Repo.HeadTarget", "Repo.HeadTargetKnowing", "Repo.SetHeadTarget", "Repo.LastHeadMove",
		},
	},
	{
		File: "objects.go",
		Header: `This file holds objects: hashing and writing blobs, reading them
back, asking what the object store holds, importing objects, and the
modes and size limit of the entries that point at them.`,
		Names: []string{
			"Repo.ObjectID", "Repo.newObjectHash", "Repo.ObjectTypes", "Repo.writeBlobsData",
			"ModeFile", "ModeExec", "ModeSymlink", "ModeGitlink", "ModeTree", "AbsentMode", "MaxFileSize",
			"ObjectInfo", "Repo.ObjectInfos", "Repo.objectInfosGit", "Hasher", "Repo.NewHasher", "Hasher.HashFiles", "Hasher.Close", "Repo.ObjectSizes", "Repo.ObjectType", "Repo.HasObject",
			"Repo.BlobID", "Repo.WriteBlob", "Repo.WriteBlobs", "Repo.WriteBlobsData", "Repo.ReadBlob",
			"Repo.HashFiles", "Repo.HashFilesRaw", "Repo.hashPaths",
			"Repo.ImportObjects",
		},
	},
	{
		File:   "commits.go",
		Header: `This file holds commits: writing them, their messages, ancestry, and searches of history.`,
		Names: []string{
			"Repo.writeCommit", "cleanIdent", "gitDate", "Repo.ReadCommit",
			"Identity", "CommitRequest", "Repo.CommitTree", "Repo.CommitMessage",
			"CommitInfo", "CommitInfo.Subject", "CommitQuery", "Repo.FindCommits",
			"ChainCommit", "Repo.ReadChain", "Repo.IsAncestor",
		},
	},
	{
		File: "trees.go",
		Header: `This file holds reading trees (a commit's tree, its paths and
entries) and the small trees written whole (the empty tree, a tree of
blobs). Trees edited path by path are in treebuild.go, checks of trees
in treecheck.go.`,
		Names: []string{
			"Repo.writeIDTree",
			"Repo.TreeOf", "Repo.TreePaths", "Repo.TreeEntries", "TreeEntry", "Repo.FilesAt",
			"Repo.WriteEmptyTree", "Repo.BlobTree",
		},
	},
	{
		File: "treebuild.go",
		Header: `This file holds the tree encoder: a tree built from a base tree and
edits path by path, written with one long-lived git process per kind of
work instead of an index.`,
		Names: []string{
			"TreeEdit", "TreeEdit.removes", "Repo.EditTree",
			"TreeEditor", "Repo.StartTreeEdit", "FolderEdit", "Repo.EditTreeFolders", "treeBuilder.readTreeHere", "TreeEditor.Preload", "TreeEditor.Close", "TreeEditor.Apply",
			"editNode", "editNode.isFolder", "treeEntry", "treeBuilder", "cachedTree", "builtTree",
			"treeBuilder.close", "treeBuilder.load", "treeBuilder.compute", "treeBuilder.encode",
			"treeNameLess", "treeBuilder.write", "treeBuilder.readTreeReply", "parseTree", "parseTreeEntries",
		},
	},
	{
		File:   "treecheck.go",
		Header: `This file holds the checks of a tree's entries before anything is written from it.`,
		Names: []string{
			"TreeProblem", "Repo.CheckTree", "joinFolder", "checkEntries", "isTreeMode",
			"validEntryName", "isDotGitName", "parseTreeRawIDs", "treeFolders",
		},
	},
	{
		File: "index.go",
		Header: `This file holds the index: reading and writing its entries, the
user's index (its path, lock and installing a new one), and the
raw bytes of an index file.`,
		Names: []string{
			"IndexFile", "IndexFile.Bytes", "Repo.ReadIndexFile", "IndexFile.Unchanged", "indexEntry", "walkIndex", "indexCacheTree", "Repo.CachedTree", "Repo.IndexFromTree", "Repo.IndexKinds", "Repo.RefreshIndex", "statArgs",
			"Index", "Index.env", "Repo.ReadTree", "Repo.WriteTree", "Repo.AddAll", "excludeGlobs",
			"IndexEntry", "Repo.UpdateIndexEntries", "Repo.IndexEntries", "inPathOrder", "Repo.indexEntriesOf", "parseIndex",
			"Repo.IndexPath", "Repo.CopyIndex", "Repo.InstallIndex", "ErrIndexLocked", "Repo.ResetIndexTo",
			"Repo.IndexLocked", "IndexLockedError", "IndexLockedError.Error", "IndexLockedError.Is",
			"Repo.ReadIndexBytes", "Repo.WriteIndexBytes", "Repo.IndexBytesTree",
			"Repo.HiddenLocalEdits", "Repo.SubmodulePaths", "Repo.OutsideSparseCheckout",
		},
	},
	{
		File: "privindex.go",
		Header: `This file holds private indexes: the one naming and cleanup rule for
an index of our own in the git dir, what a killed process leaves
behind, and hashing work-tree files through one.`,
		Names: []string{
			"Repo.PrivateIndex", "Repo.privateIndex", "Repo.newPrivateIndex", "Repo.emptyPrivateIndex",
			"privateIndexSeq", "privateIndexArgs",
			"LeftoverIndex", "Repo.LeftoverIndexes", "Repo.RemoveLeftover",
			"Repo.HashIndexed", "Repo.HashWorkTreePaths", "Repo.hashHere", "maxHashHere", "Repo.plainCheckin",
		},
	},
	{
		File:   "worktrees.go",
		Header: `This file holds linked worktrees: adding, listing, opening and removing them.`,
		Names: []string{
			"Repo.WorktreeRepo", "Repo.ResetWorktreeTo", "Repo.WorktreeClean",
			"Repo.AddWorktree", "Repo.ForgetWorktree", "Repo.Worktrees", "Repo.OpenWorktree",
		},
	},
	{
		File: "status.go",
		Header: `This file holds the work tree against the index and HEAD: status,
untracked and ignored files, and whether anything differs.`,
		Names: []string{
			"Repo.IgnoredAt", "IgnoredAtLimit",
			"StatusEntry", "Repo.Status", "hugePagesEnv", "parseStatusV2", "Repo.FSMonitorSetting", "Repo.mayConfigureFSMonitor",
			"ErrTooMany", "Repo.UntrackedUnder", "Repo.UntrackedFiles",
			"Repo.IgnoredIncludes", "Repo.IgnoredInTheWay", "Repo.Dirty", "Repo.DirtyPaths",
		},
	},
	{
		File: "checkout.go",
		Header: `This file holds writing files from objects: checking entries out into
a folder as git would, or byte for byte, and reset --hard.`,
		Names: []string{
			"BlobRequest", "Repo.StreamBlobs", "BlobStreamer", "Repo.NewBlobStreamer", "BlobStreamer.Close", "BlobStreamer.Stream", "copyUntil", "Repo.NewBlobHash",
			"Repo.CheckoutTo", "Repo.CheckoutRaw", "writeN", "Repo.ResetHard",
		},
	},
	{
		File:   "config.go",
		Header: `This file holds reading git's configuration.`,
		Names: []string{
			"Repo.ConfigMayMention", "Repo.configFiles", "Repo.configLast", "plainConfigText", "systemConfigFile", "systemConfigOnce", "systemConfig", "systemConfigKnown",
			"Repo.ConfigGet", "Repo.ConfigGetAll", "Repo.ConfigBool", "Repo.ConfigInt", "Repo.configUnset", "Repo.ConfigGetRegexp",
			"Repo.ConfigValues", "ConfigEntry", "configEntries", "Repo.ConfigFileEntries", "Repo.UserIdentityKnown",
		},
	},
	{
		File: "diff.go",
		Header: `This file holds differences between trees: as records, as paths,
or printed as a patch, a diffstat or status letters.`,
		Names: []string{
			"TreeChange", "Repo.DiffTrees", "parseRawDiff", "Repo.ChangedPaths",
			"DiffFormat", "DiffPatch", "DiffStat", "DiffNameStatus", "DiffBinaryPatch", "Repo.DiffTreesTo",
		},
	},
	{
		File: "odb.go",
		Header: `This file holds the object store read and written in this process
(loose objects, pack index lookups), and the one rule for when that is
allowed instead of asking git.`,
		Names: []string{
			"errSlowPath", "Repo.InProcess", "Repo.fastOK", "Repo.fastAllowed", "Repo.looseObjectDir", "Repo.writeObject",
			"writeLooseObject", "zlibWriters", "createObjectTemp", "looseWriters", "writeLooseObjects", "Repo.loosePath", "Repo.WriteObjects", "Repo.readLoose",
			"Repo.looseInfo", "Repo.packedAt", "Repo.objectInfoDepth", "Repo.objectInfoInProcess", "Repo.objectInfoHere", "maxBucketRead", "packFile.lookup", "Repo.hasObject", "readSmall",
			"packList", "packDir", "maxPackDirs", "packFile", "packsAcquire", "packsRelease", "dropPack", "packsOf", "openPack", "openObjectFile",
		},
	},
	{
		File: "indexedit.go",
		Header: `This file holds the in-process editor of the user's index: a few
entries set or removed (what ` + "`git update-index --index-info`" + ` does) at
the cost of copying the file once, and the index's cache-tree kept
valid along the edited paths, so that neither this step nor the next
reader of the index's tree (the operation log) pays for every file of
the repository in a git process. Whatever it does not handle exactly
is left to git.`,
		Names: []string{
			"KnownFolders", "Repo.SetIndexEntries", "errIndexFallback", "Repo.editIndex", "indexPos", "Repo.editIndexData",
			"Repo.indexHash", "cacheTree", "parseCacheTree", "cacheTree.encode", "cacheTree.child", "cacheTree.insert",
			"cacheTree.invalidate", "cacheTree.update", "indexMemo", "rememberIndex", "Repo.recalledIndex", "fileIDOf",
			"pieces", "pieces.add", "pieces.join", "Repo.indexSum", "Repo.PrepareIndexEntries", "prepared", "indexPrep", "takePrepared",
			"indexData", "flatIndexData", "indexData.bytes", "indexData.tail", "hugePage", "bigBuffer",
		},
	},
	{
		File: "packread.go",
		Header: `This file holds reading objects from packs in this process: the entry
an index names, deltas resolved against their bases.`,
		Names: []string{
			"Repo.readObjectHere", "Repo.readObjectDepth", "packObjectTypes", "maxDeltaDepth", "Repo.packEntry", "Repo.packEntryInfo", "deltaOffset", "packHeader",
			"inflateN", "applyDelta", "zlibReaders", "getZlibReader",
		},
	},
	{
		File: "plainfiles.go",
		Header: `This file holds when git converts nothing for a set of paths, and
reading blobs in this process for them.`,
		Names: []string{
			"Repo.PlainFiles", "Repo.headHasAttributes", "BlobReader", "Repo.NewBlobReader", "BlobReader.Read",
		},
	},
	{
		File: "refwatch.go",
		Header: `This file holds telling watchers, in this process, which refs are about
to change.`,
		Names: []string{
			"refWatchers", "WatchRefs", "Repo.refsAboutToChange",
		},
	},
	{
		File: "statcache.go",
		Header: `This file holds the stat cache: a private copy of the index whose
refreshed stat data status may use, and when it can be trusted.`,
		Names: []string{
			"statCacheDir", "statCacheRecord", "fileID", "idOfPath", "idOfStat", "folderID", "statCache", "Repo.openStatCache",
			"statCache.load", "statCache.save", "statCache.forget", "Repo.statusWithCache", "hasSubmoduleEntry", "Repo.untrackedCacheHere",
		},
	},
}
