# Record once, replay many (runtime/graph.hpp): lapis.graph() and its Graph. Included into _core.pyx.

import threading

from libcpp.memory cimport unique_ptr


cdef extern from "lapis/runtime/graph.hpp" namespace "lapis" nogil:
    cdef cppclass CGraph "lapis::Graph":
        void replay() except +raise_lapis_error
        size_t size()
        const vector[string]& names()
        const string& replay_mode()
        void clear()
    cdef cppclass GraphRecording "lapis::GraphRecording":
        GraphRecording(CGraph& graph) except +raise_lapis_error
    CGraph* recording_graph "lapis::recording_graph"()
    void c_refuse_while_recording "lapis::refuse_while_recording"(const char* who, const char* what) \
        except +raise_lapis_error


cdef object _recording = threading.local()  # .graph: the Graph this thread records, for _keep_for_graph


cdef class Graph:
    """A sequence of lapis.kernels calls recorded once, inside `with lapis.graph() as g:`, and run
    again by g.replay() in C++, with no Python per call. Nothing runs while recording: each call's
    arguments are checked (and its result allocated) as the call is made, and the kernel runs at each
    replay. A replay does what the calls would do, in order: the same syncs (none, for data that stays
    on the device) and modified marks; the DualViews the calls use, those allocated inside included,
    live as long as the graph.

    Inside the capture, whatever a graph could not replay raises lapis.GraphCaptureError and abandons
    the capture (the graph then refuses to replay): a copy between the sides or an access to a host
    side (asnumpy(), a numpy argument or out), an input whose device side is stale, a result returned
    to Python (dot or norm without out), a fill (lapis.zeros, lapis.full: lapis.empty is fine), a
    LAPIS module's function. One capture per thread; a replay runs on the calling thread, each kernel
    under lapis's execution lock, like the calls themselves."""
    cdef CGraph graph
    cdef unique_ptr[GraphRecording] recording
    cdef object recording_thread
    cdef str abandoned  # why the capture was abandoned, if it was
    # The DualViews the recorded calls use: the C++ calls hold their buffers, these hold what the
    # buffers borrow (a numpy array's memory lives as long as its DualView).
    cdef list kept

    def __cinit__(self):
        self.kept = []

    def __dealloc__(self):
        self.graph.clear()  # before the DualViews in `kept`: a buffer writes back into what it borrows as it dies

    def __enter__(self):
        if self.recording_thread is not None or len(self) or self.abandoned is not None:
            raise GraphCaptureError("lapis.graph: a graph records once")
        self.recording.reset(new GraphRecording(self.graph))
        self.recording_thread = threading.get_ident()
        _recording.graph = self
        return self

    def __exit__(self, exc_type, exc, traceback):
        if self.recording_thread != threading.get_ident():
            raise GraphCaptureError("lapis.graph: a capture must end on the thread that began it")
        self.recording.reset()
        _recording.graph = None
        if exc_type is not None:
            self.graph.clear()
            self.kept = []
            self.abandoned = f"{exc_type.__name__}: {exc}"
        return False

    def replay(self):
        """Runs the recorded calls again, in order."""
        if self.abandoned is not None:
            raise GraphCaptureError(f"lapis.graph: this graph's capture was abandoned ({self.abandoned}): "
                                    "it has nothing to replay")
        if self.recording.get() != NULL:
            raise GraphCaptureError("lapis.graph: replay() inside its own capture")
        note_python_caller()  # the replay's events name this line (it uses no DualView from Python)
        with nogil:
            self.graph.replay()

    def __len__(self):
        return self.graph.size()

    @property
    def calls(self):
        """The recorded calls' names, in order."""
        return tuple(name.decode() for name in self.graph.names())

    @property
    def replay_mode(self):
        """How replays run: "" before the first, "device graph" where the device records launches
        (CUDA: one launch per replay), else "call by call: <why>" (each call launched from C++)."""
        return self.graph.replay_mode().decode()

    def __repr__(self):
        state = "abandoned" if self.abandoned is not None else f"{len(self)} calls"
        return f"lapis.Graph({state})"


def graph():
    """A new Graph: `with lapis.graph() as g:` records the lapis.kernels calls made inside it,
    g.replay() runs them again (see Graph)."""
    return Graph()


def _keep_for_graph(dualviews):
    """Keeps `dualviews`, those of a call lapis.kernels recorded, with the graph this thread records."""
    (<Graph>_recording.graph).kept.extend(dualviews)


def _refuse_while_recording(str who, str what):
    """GraphCaptureError if this thread records a graph (for Python code that lapis cannot record)."""
    c_refuse_while_recording(who.encode(), what.encode())
