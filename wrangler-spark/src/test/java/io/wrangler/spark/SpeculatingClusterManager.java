package io.wrangler.spark;

import java.net.URL;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskState;
import org.apache.spark.executor.Executor;
import org.apache.spark.executor.ExecutorBackend;
import org.apache.spark.resource.ResourceInformation;
import org.apache.spark.resource.ResourceProfile;
import org.apache.spark.scheduler.ExecutorResourcesAmounts;
import org.apache.spark.scheduler.ExternalClusterManager;
import org.apache.spark.scheduler.SchedulerBackend;
import org.apache.spark.scheduler.SparkListenerExecutorAdded;
import org.apache.spark.scheduler.TaskDescription;
import org.apache.spark.scheduler.TaskScheduler;
import org.apache.spark.scheduler.TaskSchedulerImpl;
import org.apache.spark.scheduler.WorkerOffer;
import org.apache.spark.scheduler.cluster.ExecutorInfo;
import org.apache.spark.status.api.v1.ThreadStackTrace;
import org.apache.spark.util.SystemClock;
import scala.Enumeration;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A Spark master for tests, {@code wrangler-speculating[N]}: N executors of one core each, all in this JVM, each on a
 * host of its own, scheduled by a cluster's task scheduler ({@code isLocal = false}), so that Spark speculates.
 *
 * <p>Why not {@code local[N]}: its {@code TaskSchedulerImpl} is created with {@code isLocal = true} and never starts
 * the speculation check. Why not {@code LocalSchedulerBackend} under a cluster scheduler: it offers one executor on one
 * host, and Spark never launches a speculative copy on a host where an attempt of the same task runs
 * ({@code TaskSetManager.dequeueTaskFromList}: {@code !(speculative && hasAttemptOnHost(index, host))}). So each
 * executor here is a Spark {@link Executor} of its own (sharing the driver's {@code SparkEnv}, as local mode's does) with
 * a host name of its own; offers, launches and status updates go through one thread, as local mode's endpoint does.
 * Spark finds this class through {@code META-INF/services/org.apache.spark.scheduler.ExternalClusterManager}.
 */
public final class SpeculatingClusterManager implements ExternalClusterManager {
    private static final Pattern MASTER = Pattern.compile("wrangler-speculating\\[(\\d+)]");

    @Override
    public boolean canCreate(String masterURL) {
        return MASTER.matcher(masterURL).matches();
    }

    @Override
    public TaskScheduler createTaskScheduler(SparkContext sc, String masterURL) {
        return new TaskSchedulerImpl(sc, sc.conf().getInt("spark.task.maxFailures", 4), false, new SystemClock());
    }

    @Override
    public SchedulerBackend createSchedulerBackend(SparkContext sc, String masterURL, TaskScheduler scheduler) {
        Matcher m = MASTER.matcher(masterURL);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a wrangler-speculating master: " + masterURL);
        }
        return new Backend((TaskSchedulerImpl) scheduler, Integer.parseInt(m.group(1)));
    }

    @Override
    public void initialize(TaskScheduler scheduler, SchedulerBackend backend) {
        ((TaskSchedulerImpl) scheduler).initialize(backend);
    }

    /** N one-core executors on N hosts in this JVM. Everything but {@link #killTask} runs on the {@code offers} thread. */
    private static final class Backend implements SchedulerBackend, ExecutorBackend {
        private final TaskSchedulerImpl scheduler;
        private final int executorCount;
        private final ExecutorService offers = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "wrangler-speculating-offers");
            t.setDaemon(true);
            return t;
        });
        private final Map<String, Executor> executors = new LinkedHashMap<>();
        private final Map<String, String> hosts = new HashMap<>();
        private final Map<String, Integer> freeCores = new HashMap<>();
        private final Map<Long, String> running = new HashMap<>();
        private String appId;

        Backend(TaskSchedulerImpl scheduler, int executorCount) {
            this.scheduler = scheduler;
            this.executorCount = executorCount;
            SchedulerBackend.$init$(this);
        }

        @Override
        public void org$apache$spark$scheduler$SchedulerBackend$_setter_$org$apache$spark$scheduler$SchedulerBackend$$appId_$eq(String id) {
            this.appId = id;
        }

        @Override
        public String org$apache$spark$scheduler$SchedulerBackend$$appId() {
            return appId;
        }

        @Override
        public void start() {
            scala.collection.immutable.Seq<URL> noJars = CollectionConverters.asScala(List.<URL>of()).toList();
            scala.collection.immutable.Map<String, ResourceInformation> noResources = scala.collection.immutable.Map$.MODULE$.empty();
            for (int i = 0; i < executorCount; i++) {
                String id = "exec-" + i;
                String host = "host-" + i;
                executors.put(id, new Executor(id, host, SparkEnv.get(), noJars, true, (t, e) -> { }, noResources));
                hosts.put(id, host);
                freeCores.put(id, 1);
                // The driver's heartbeat receiver then knows the executor (else it asks it to register a block manager).
                scheduler.sc().listenerBus().post(new SparkListenerExecutorAdded(System.currentTimeMillis(), id,
                        new ExecutorInfo(host, 1, scala.collection.immutable.Map$.MODULE$.empty(), scala.collection.immutable.Map$.MODULE$.empty())));
            }
        }

        @Override
        public void stop() {
            offers.shutdownNow();
            try {
                offers.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            executors.values().forEach(Executor::stop);
        }

        @Override
        public void reviveOffers() {
            offers.execute(this::offer);
        }

        private void offer() {
            List<WorkerOffer> free = new ArrayList<>();
            freeCores.forEach((id, cores) -> {
                if (cores > 0) {
                    free.add(new WorkerOffer(id, hosts.get(id), cores, Option.empty(), ExecutorResourcesAmounts.empty(),
                            ResourceProfile.DEFAULT_RESOURCE_PROFILE_ID()));
                }
            });
            if (free.isEmpty()) {
                return;
            }
            for (scala.collection.immutable.Seq<TaskDescription> perOffer
                    : CollectionConverters.asJava(scheduler.resourceOffers(CollectionConverters.asScala(free).toIndexedSeq(), true))) {
                for (TaskDescription task : CollectionConverters.asJava(perOffer)) {
                    freeCores.merge(task.executorId(), -1, Integer::sum);
                    running.put(task.taskId(), task.executorId());
                    executors.get(task.executorId()).launchTask(this, task);
                }
            }
        }

        @Override
        public void statusUpdate(long taskId, Enumeration.Value state, ByteBuffer data) {
            offers.execute(() -> {
                scheduler.statusUpdate(taskId, state, data);
                if (TaskState.isFinished(state)) {
                    String executor = running.remove(taskId);
                    if (executor != null) {
                        freeCores.merge(executor, 1, Integer::sum);
                    }
                    offer();
                }
            });
        }

        @Override
        public void killTask(long taskId, String executorId, boolean interruptThread, String reason) {
            executors.get(executorId).killTask(taskId, interruptThread, reason);
        }

        @Override
        public int defaultParallelism() {
            return executorCount;
        }

        @Override
        public int maxNumConcurrentTasks(ResourceProfile rp) {
            return executorCount;
        }

        @Override
        public Option<ThreadStackTrace> getTaskThreadDump(long taskId, String executorId) {
            return Option.empty();
        }
    }
}
